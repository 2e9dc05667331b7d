/// Builds outgoing PDUs with the little-endian byte order every Bluetooth
/// layer uses. Inlinable, like `ByteReader`.
public struct ByteWriter {
    @inlinable public var bytes: [UInt8] { storage }
    @usableFromInline var storage: [UInt8]

    @inlinable public init(capacity: Int = 16) {
        storage = []
        storage.reserveCapacity(capacity)
    }

    @inlinable public mutating func u8(_ value: UInt8) { storage.append(value) }

    @inlinable public mutating func u16(_ value: UInt16) {
        storage.append(UInt8(truncatingIfNeeded: value))
        storage.append(UInt8(truncatingIfNeeded: value >> 8))
    }

    @inlinable public mutating func u24(_ value: UInt32) {
        for i in 0..<3 { storage.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(i)))) }
    }

    @inlinable public mutating func u32(_ value: UInt32) {
        for i in 0..<4 { storage.append(UInt8(truncatingIfNeeded: value >> (8 * UInt32(i)))) }
    }

    @inlinable public mutating func u64(_ value: UInt64) {
        for i in 0..<8 { storage.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }

    @inlinable public mutating func append<C: Collection>(_ data: C) where C.Element == UInt8 {
        storage.append(contentsOf: data)
    }
}
