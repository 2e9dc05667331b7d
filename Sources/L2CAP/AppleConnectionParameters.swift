import BluetoothCore

/// Why a parameter set falls outside Apple's Accessory Design Guidelines
/// (the rules iOS applies to a peripheral's Connection Parameter Update
/// Request; it rejects anything else).
public enum AppleParameterViolation: Equatable, CustomStringConvertible {
    /// Outside the Core specification's own ranges.
    case invalid
    /// Interval Min below 15 ms.
    case intervalMinTooShort
    /// Interval Min + 15 ms above Interval Max.
    case intervalRangeTooNarrow
    /// Peripheral Latency above 30.
    case latencyTooHigh
    /// Supervision Timeout outside 2 s..6 s.
    case timeoutOutOfRange
    /// Interval Max × (Latency + 1) above 2 s: the phone would wait too long.
    case silenceTooLong
    /// Interval Max × (Latency + 1) × 3 not below the Supervision Timeout:
    /// three missed events would end the link.
    case timeoutTooShortForSilence

    public var description: String {
        switch self {
        case .invalid: return "outside the Core ranges"
        case .intervalMinTooShort: return "interval min below 15 ms"
        case .intervalRangeTooNarrow: return "interval min + 15 ms above interval max"
        case .latencyTooHigh: return "latency above 30"
        case .timeoutOutOfRange: return "supervision timeout outside 2-6 s"
        case .silenceTooLong: return "interval max x (latency + 1) above 2 s"
        case .timeoutTooShortForSilence: return "interval max x (latency + 1) x 3 not below the timeout"
        }
    }
}

extension ConnectionParameters {
    /// What the head unit asks for as peripheral: the parameters it uses
    /// as central (30-50 ms, no latency, 2 s), which are within Apple's
    /// rules, so a phone sees the same link whichever side connected.
    public static let peripheralRequest = ConnectionParameters.default

    /// The first of Apple's rules these parameters break, or nil. In the
    /// units of the fields: interval 1.25 ms, timeout 10 ms.
    public var appleGuidelineViolation: AppleParameterViolation? {
        guard isValid else { return .invalid }
        let min = Int(intervalMin), max = Int(intervalMax), latency = Int(peripheralLatency)
        let timeout = Int(supervisionTimeout)
        guard min >= 12 else { return .intervalMinTooShort }            // 15 ms
        guard min + 12 <= max else { return .intervalRangeTooNarrow }   // + 15 ms
        guard latency <= 30 else { return .latencyTooHigh }
        guard (200...600).contains(timeout) else { return .timeoutOutOfRange }
        let silence = max * (latency + 1)                                // in 1.25 ms
        guard silence <= 1600 else { return .silenceTooLong }           // 2 s
        // silence × 1.25 ms × 3 < timeout × 10 ms, in integers: × 3 × 1.25 = × 15 / 4.
        guard silence * 15 < timeout * 40 else { return .timeoutTooShortForSilence }
        return nil
    }

    public var meetsAppleGuidelines: Bool { appleGuidelineViolation == nil }
}
