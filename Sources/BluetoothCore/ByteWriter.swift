/// Builds outgoing PDUs with the little-endian byte order every Bluetooth
/// layer uses.
public struct ByteWriter {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 16) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func u8(_ value: UInt8) { bytes.append(value) }

    public mutating func u16(_ value: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: value))
        bytes.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    public mutating func u24(_ value: UInt32) {
        for i in 0..<3 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(i)))) }
    }

    public mutating func u32(_ value: UInt32) {
        for i in 0..<4 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(i)))) }
    }

    public mutating func u64(_ value: UInt64) {
        for i in 0..<8 { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    public mutating func append<C: Collection>(_ data: C) where C.Element == UInt8 {
        bytes.append(contentsOf: data)
    }
}
