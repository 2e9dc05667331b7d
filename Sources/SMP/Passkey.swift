import BluetoothCore

/// Six decimal digits shown to the user: the passkey of Passkey Entry or
/// the value of Numeric Comparison (always shown with leading zeros).
public struct Passkey: Equatable, CustomStringConvertible {
    public let value: UInt32

    /// nil above 999999.
    public init?(_ value: UInt32) {
        guard value <= 999_999 else { return nil }
        self.value = value
    }

    init(truncating value: UInt32) { self.value = value % 1_000_000 }

    /// A uniformly drawn passkey: values from the top of the 32-bit range
    /// that would favour low passkeys are drawn again.
    static func random(_ source: RandomSource) throws(CryptoError) -> Passkey {
        let limit: UInt32 = 4_294_000_000  // a multiple of 1 000 000
        for _ in 0..<16 {
            let b = try source.bytes(4)
            let v = UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
            if v < limit { return Passkey(truncating: v) }
        }
        throw .randomUnavailable
    }

    /// "004711".
    public var text: String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits
    }

    public var description: String { text }

    /// The passkey as the 128-bit r value of f6 (SMP order).
    var f6Value: [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8),
         UInt8(truncatingIfNeeded: value >> 16), UInt8(truncatingIfNeeded: value >> 24)]
            + [UInt8](repeating: 0, count: 12)
    }
}
