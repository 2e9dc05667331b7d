/// A Bluetooth UUID, kept as its 128-bit value. 16- and 32-bit UUIDs are
/// aliases inside the Bluetooth Base UUID (0000xxxx-0000-1000-8000-00805F9B34FB)
/// and compare equal to their 128-bit spelling.
public struct BluetoothUUID: Hashable, CustomStringConvertible {
    /// The 128 bits, most significant half first (the order of the text form).
    public let high: UInt64
    public let low: UInt64

    static let baseHigh: UInt64 = 0x0000_0000_0000_1000
    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB

    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    public init(_ short: UInt16) { self.init(uuid32: UInt32(short)) }

    public init(uuid32 value: UInt32) {
        high = UInt64(value) << 32 | BluetoothUUID.baseHigh
        low = BluetoothUUID.baseLow
    }

    /// From the text form, "AB312B45-A8A1-4BCE-97E7-7D3D97FB541E" (or 4/8 hex digits).
    public init?(_ text: String) {
        guard let bytes = bytesFromHex(text) else { return nil }
        switch bytes.count {
        case 2: self.init(UInt16(bytes[0]) << 8 | UInt16(bytes[1]))
        case 4: self.init(uuid32: UInt32(bytes[0]) << 24 | UInt32(bytes[1]) << 16 | UInt32(bytes[2]) << 8 | UInt32(bytes[3]))
        case 16: self.init(bigEndian: bytes[...])
        default: return nil
        }
    }

    public init(bigEndian bytes: ArraySlice<UInt8>) {
        precondition(bytes.count == 16)
        var h: UInt64 = 0
        var l: UInt64 = 0
        var index = bytes.startIndex
        for _ in 0..<8 { h = h << 8 | UInt64(bytes[index]); index += 1 }
        for _ in 0..<8 { l = l << 8 | UInt64(bytes[index]); index += 1 }
        self.init(high: h, low: l)
    }

    /// From the over-the-air form: 2, 4 or 16 bytes, little-endian.
    public init?(littleEndian bytes: ArraySlice<UInt8>) {
        switch bytes.count {
        case 2:
            self.init(UInt16(bytes[bytes.startIndex]) | UInt16(bytes[bytes.startIndex + 1]) << 8)
        case 4:
            var v: UInt32 = 0
            for (i, b) in bytes.enumerated() { v |= UInt32(b) << (8 * UInt32(i)) }
            self.init(uuid32: v)
        case 16:
            self.init(bigEndian: ArraySlice(bytes.reversed()))
        default:
            return nil
        }
    }

    /// The 16-bit alias, when this UUID lies in the Base UUID range.
    public var shortValue: UInt16? {
        guard low == BluetoothUUID.baseLow, high & 0xFFFF_FFFF == BluetoothUUID.baseHigh,
              high >> 48 == 0 else { return nil }
        return UInt16(truncatingIfNeeded: high >> 32)
    }

    /// Little-endian over-the-air bytes: 2 bytes for a 16-bit alias, else 16.
    public var compactLittleEndian: [UInt8] {
        if let short = shortValue { return [UInt8(short & 0xFF), UInt8(short >> 8)] }
        return fullLittleEndian
    }

    public var fullLittleEndian: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(16)
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: low >> (8 * UInt64(i)))) }
        for i in 0..<8 { out.append(UInt8(truncatingIfNeeded: high >> (8 * UInt64(i)))) }
        return out
    }

    public var description: String {
        if let short = shortValue { return hex(short, digits: 4).uppercased() }
        let h = hex(high, digits: 16).uppercased()
        let l = hex(low, digits: 16).uppercased()
        let hc = Array(h)
        let lc = Array(l)
        return String(hc[0..<8]) + "-" + String(hc[8..<12]) + "-" + String(hc[12..<16]) + "-"
            + String(lc[0..<4]) + "-" + String(lc[4..<16])
    }
}
