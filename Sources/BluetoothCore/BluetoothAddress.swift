/// A 48-bit device address with its type. Phones use random addresses that
/// change over time, so an address is never an identity on its own
/// (identity is the SERVER NAME and, after bonding, the IRK).
public struct BluetoothAddress: Hashable, CustomStringConvertible {
    public enum Kind: UInt8 {
        case `public` = 0
        case random = 1
        /// Types 2 and 3 appear in reports when the controller resolved an RPA.
        case publicIdentity = 2
        case randomIdentity = 3
    }

    /// The six bytes in over-the-air (little-endian) order.
    public let value: UInt64
    public let kind: Kind

    public init(value: UInt64, kind: Kind) {
        self.value = value & 0xFFFF_FFFF_FFFF
        self.kind = kind
    }

    public init?(littleEndian bytes: ArraySlice<UInt8>, kind: Kind) {
        guard bytes.count == 6 else { return nil }
        var v: UInt64 = 0
        for (i, b) in bytes.enumerated() { v |= UInt64(b) << (8 * UInt64(i)) }
        self.init(value: v, kind: kind)
    }

    /// From "AA:BB:CC:DD:EE:FF" (most significant byte first, as printed).
    public init?(_ text: String, kind: Kind = .public) {
        let parts = text.split(separator: ":")
        guard parts.count == 6 else { return nil }
        var v: UInt64 = 0
        for part in parts {
            guard part.count == 2, let byte = UInt8(part, radix: 16) else { return nil }
            v = v << 8 | UInt64(byte)
        }
        self.init(value: v, kind: kind)
    }

    public var littleEndianBytes: [UInt8] {
        (0..<6).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }

    public var isRandom: Bool { kind == .random || kind == .randomIdentity }

    /// The two top bits of a random address say what it is.
    public var isResolvablePrivate: Bool { kind == .random && (value >> 46) == 0b01 }
    public var isNonResolvablePrivate: Bool { kind == .random && (value >> 46) == 0b00 }
    public var isStaticRandom: Bool { kind == .random && (value >> 46) == 0b11 }

    public var text: String {
        var parts: [String] = []
        for i in (0..<6).reversed() {
            parts.append(hex(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))), digits: 2).uppercased())
        }
        var out = ""
        for (i, p) in parts.enumerated() {
            if i > 0 { out += ":" }
            out += p
        }
        return out
    }

    public var description: String {
        switch kind {
        case .public: return text
        case .random: return text + "/random"
        case .publicIdentity: return text + "/public-id"
        case .randomIdentity: return text + "/random-id"
        }
    }
}
