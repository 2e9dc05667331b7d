import BluetoothCore

/// A Foundation `UUID` as GhostDrop's JSON carries it: its `uuidString`,
/// upper-case hex in 8-4-4-4-12 groups. The 16 bytes (in text order) go into
/// the handshake transcript.
public struct GhostUUID: Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init?(bytes: [UInt8]) {
        guard bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// From `uuidString` text; lower-case hex is read too (Foundation's
    /// `UUID(uuidString:)` accepts it), anything else is refused.
    public init?(_ text: String) {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return nil }
        var hexDigits: [UInt8] = []
        hexDigits.reserveCapacity(32)
        for (i, c) in utf8.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard c == 0x2D else { return nil }
            } else {
                hexDigits.append(c)
            }
        }
        guard let bytes = bytesFromHex(String(decoding: hexDigits, as: UTF8.self)), bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// A version 4 UUID from 16 random bytes, as `UUID()` makes one.
    public init?(random: RandomSource) {
        guard var bytes = random.generate(16), bytes.count == 16 else { return nil }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        self.bytes = bytes
    }

    public var description: String {
        let h = hexString(bytes).uppercased()
        let c = Array(h)
        return String(c[0..<8]) + "-" + String(c[8..<12]) + "-" + String(c[12..<16]) + "-"
            + String(c[16..<20]) + "-" + String(c[20..<32])
    }
}
