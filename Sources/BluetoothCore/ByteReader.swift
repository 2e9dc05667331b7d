/// Reads little-endian fields from a received PDU without ever reading past
/// its end: every accessor returns nil when the bytes run out, so a malformed
/// packet turns into a parse failure instead of a trap.
///
/// Inlinable: every layer parses with it, and as calls into another module
/// each field read cost a call and a retain/release of the bytes.
public struct ByteReader {
    public let bytes: ArraySlice<UInt8>
    /// Where the next read starts.
    @inlinable public var offset: Int { position }
    @usableFromInline var position: Int

    @inlinable public init(_ bytes: [UInt8]) {
        self.bytes = bytes[...]
        self.position = bytes.startIndex
    }

    @inlinable public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    @inlinable public var remainingCount: Int { bytes.endIndex - offset }
    @inlinable public var isAtEnd: Bool { offset >= bytes.endIndex }

    @inlinable public mutating func u8() -> UInt8? {
        guard remainingCount >= 1 else { return nil }
        defer { position += 1 }
        return bytes[offset]
    }

    @inlinable public mutating func u16() -> UInt16? {
        guard remainingCount >= 2 else { return nil }
        defer { position += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    @inlinable public mutating func u24() -> UInt32? {
        guard remainingCount >= 3 else { return nil }
        defer { position += 3 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
    }

    @inlinable public mutating func u32() -> UInt32? {
        guard remainingCount >= 4 else { return nil }
        var value: UInt32 = 0
        for i in 0..<4 { value |= UInt32(bytes[offset + i]) << (8 * UInt32(i)) }
        position += 4
        return value
    }

    @inlinable public mutating func u64() -> UInt64? {
        guard remainingCount >= 8 else { return nil }
        var value: UInt64 = 0
        for i in 0..<8 { value |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
        position += 8
        return value
    }

    @inlinable public mutating func i8() -> Int8? { u8().map { Int8(bitPattern: $0) } }

    @inlinable public mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, remainingCount >= count else { return nil }
        defer { position += count }
        return bytes[offset..<(offset + count)]
    }

    @inlinable public mutating func array(_ count: Int) -> [UInt8]? { bytes(count).map { Array($0) } }

    @inlinable public mutating func rest() -> ArraySlice<UInt8> {
        defer { position = bytes.endIndex }
        return bytes[offset...]
    }

    @inlinable public mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, remainingCount >= count else { return false }
        position += count
        return true
    }
}
