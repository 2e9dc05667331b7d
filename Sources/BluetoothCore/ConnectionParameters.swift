/// LE connection parameters in the units the spec uses on the wire:
/// interval 1.25 ms, latency in connection events, supervision timeout 10 ms.
public struct ConnectionParameters: Hashable, CustomStringConvertible {
    public var intervalMin: UInt16
    public var intervalMax: UInt16
    public var peripheralLatency: UInt16
    public var supervisionTimeout: UInt16

    /// 30-50 ms interval, no latency, 2 s supervision timeout: responsive for
    /// GATT discovery and still gentle on a phone's battery. 2 s is the
    /// shortest timeout Apple's accessory guidelines allow (still 40 missed
    /// connection events): a link the head unit could not end itself (a
    /// reset, a hang, power lost) frees the phone to reconnect that soon.
    public static let `default` = ConnectionParameters(intervalMin: 24, intervalMax: 40, peripheralLatency: 0, supervisionTimeout: 200)

    public init(intervalMin: UInt16, intervalMax: UInt16, peripheralLatency: UInt16, supervisionTimeout: UInt16) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.peripheralLatency = peripheralLatency
        self.supervisionTimeout = supervisionTimeout
    }

    /// The ranges of Core Vol 3 Part A 4.20 and Vol 4 Part E 7.8.18:
    /// interval 6..3200 (7.5 ms..4 s) with min <= max, latency 0..499,
    /// timeout 10..3200 (100 ms..32 s) and longer than
    /// (1 + latency) * intervalMax * 2, so the link survives the longest
    /// allowed silence.
    public var isValid: Bool {
        guard (6...3200).contains(intervalMin), (6...3200).contains(intervalMax), intervalMin <= intervalMax else { return false }
        guard peripheralLatency <= 499 else { return false }
        guard (10...3200).contains(supervisionTimeout) else { return false }
        // timeout * 10 ms > (1 + latency) * max * 1.25 ms * 2, in integers: timeout * 4 > (1 + latency) * max.
        return Int(supervisionTimeout) * 4 > (1 + Int(peripheralLatency)) * Int(intervalMax)
    }

    public var description: String {
        "interval \(intervalMin)..\(intervalMax) (x1.25 ms), latency \(peripheralLatency), timeout \(supervisionTimeout) (x10 ms)"
    }
}
