import BluetoothCore

/// The 16 random bytes the phone puts on each notification chunk; the
/// head unit's NBA1 ack repeats them.
public struct ChunkID: Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    public init?(_ bytes: ArraySlice<UInt8>) {
        guard bytes.count == 16 else { return nil }
        self.bytes = Array(bytes)
    }

    public var description: String {
        var text = ""
        for b in bytes.prefix(4) { text += hex(b, digits: 2) }
        return text + "…"
    }
}

/// The wrapper on every value written to the notifications characteristic:
/// `NBW1` + chunk id + the inner value (START, up to 200 payload bytes, or END).
public struct WrappedChunk {
    public static let magic: [UInt8] = Array("NBW1".utf8)
    public let id: ChunkID
    public let inner: ArraySlice<UInt8>

    public init?(_ value: [UInt8]) {
        guard value.count >= 20, value[0..<4].elementsEqual(WrappedChunk.magic),
              let id = ChunkID(value[4..<20]) else { return nil }
        self.id = id
        self.inner = value[20...]
    }
}

/// `NBA1` + chunk id: tells the phone the chunk was taken.
public enum ChunkAck {
    public static let magic: [UInt8] = Array("NBA1".utf8)

    public static func value(for id: ChunkID) -> [UInt8] { magic + id.bytes }

    /// A 20-byte value starting NBA1 is an ack, never frame content.
    public static func isAck(_ value: [UInt8]) -> Bool {
        value.count == 20 && value[0..<4].elementsEqual(magic)
    }
}
