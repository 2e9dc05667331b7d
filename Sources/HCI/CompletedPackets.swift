import BluetoothCore

/// The (connection handle, packets completed) pairs of a Number Of
/// Completed Packets event, read where they lie in the event's body: the
/// controller sends one such event for about every packet the host writes,
/// and an array of pairs made for each was an allocation per packet.
public struct CompletedPackets: Sequence, Equatable {
    /// Four bytes per pair: the handle, then the count, little-endian.
    let bytes: ArraySlice<UInt8>

    /// `bytes` holds whole pairs (the decoder checks the length first).
    init(bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    /// Pairs written out (tests, traces).
    public init(_ pairs: [(ConnectionHandle, UInt16)]) {
        var w = ByteWriter()
        for (handle, count) in pairs {
            w.u16(handle.value)
            w.u16(count)
        }
        bytes = w.bytes[...]
    }

    public var count: Int { bytes.count / 4 }

    public struct Iterator: IteratorProtocol {
        var reader: ByteReader
        public mutating func next() -> (ConnectionHandle, UInt16)? {
            guard let handle = reader.u16(), let count = reader.u16() else { return nil }
            return (ConnectionHandle(handle), count)
        }
    }

    public func makeIterator() -> Iterator { Iterator(reader: ByteReader(bytes)) }

    public static func == (a: CompletedPackets, b: CompletedPackets) -> Bool { a.bytes.elementsEqual(b.bytes) }
}
