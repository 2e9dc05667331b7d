/// Reads little-endian fields from a received PDU without ever reading past
/// its end: every accessor returns nil when the bytes run out, so a malformed
/// packet turns into a parse failure instead of a trap.
public struct ByteReader {
    public let bytes: ArraySlice<UInt8>
    public private(set) var offset: Int

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes[...]
        self.offset = bytes.startIndex
    }

    public init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.offset = bytes.startIndex
    }

    public var remainingCount: Int { bytes.endIndex - offset }
    public var isAtEnd: Bool { offset >= bytes.endIndex }

    public mutating func u8() -> UInt8? {
        guard remainingCount >= 1 else { return nil }
        defer { offset += 1 }
        return bytes[offset]
    }

    public mutating func u16() -> UInt16? {
        guard remainingCount >= 2 else { return nil }
        defer { offset += 2 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    public mutating func u24() -> UInt32? {
        guard remainingCount >= 3 else { return nil }
        defer { offset += 3 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
    }

    public mutating func u32() -> UInt32? {
        guard remainingCount >= 4 else { return nil }
        var value: UInt32 = 0
        for i in 0..<4 { value |= UInt32(bytes[offset + i]) << (8 * UInt32(i)) }
        offset += 4
        return value
    }

    public mutating func u64() -> UInt64? {
        guard remainingCount >= 8 else { return nil }
        var value: UInt64 = 0
        for i in 0..<8 { value |= UInt64(bytes[offset + i]) << (8 * UInt64(i)) }
        offset += 8
        return value
    }

    public mutating func i8() -> Int8? { u8().map { Int8(bitPattern: $0) } }

    public mutating func bytes(_ count: Int) -> ArraySlice<UInt8>? {
        guard count >= 0, remainingCount >= count else { return nil }
        defer { offset += count }
        return bytes[offset..<(offset + count)]
    }

    public mutating func array(_ count: Int) -> [UInt8]? { bytes(count).map { Array($0) } }

    public mutating func rest() -> ArraySlice<UInt8> {
        defer { offset = bytes.endIndex }
        return bytes[offset...]
    }

    public mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, remainingCount >= count else { return false }
        offset += count
        return true
    }
}
