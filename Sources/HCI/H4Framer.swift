import BluetoothCore

/// One HCI packet with its H4 type: what crosses a transport in either direction.
public struct HCIPacket: Equatable {
    public var type: HCIPacketType
    /// The packet without the type byte.
    public var body: [UInt8]

    public init(type: HCIPacketType, body: [UInt8]) {
        self.type = type
        self.body = body
    }

    /// Type byte + body, as written to a UART, TCP link or user-channel socket.
    public var h4Bytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(body.count + 1)
        bytes.append(type.rawValue)
        bytes.append(contentsOf: body)
        return bytes
    }
}

/// Cuts an H4 byte stream into packets. A read may end in the middle of a
/// packet or hold several; the framer keeps the tail until the rest arrives.
///
/// The header of each packet type says where its length field is, so no
/// timing is involved. A type byte that is not an HCI packet type means the
/// stream lost sync (line noise on a UART, a wrong baud rate): the framer
/// drops bytes up to the next plausible type byte and says so.
public struct H4Framer {
    private var buffer: [UInt8] = []
    private var start = 0
    public private(set) var droppedBytes = 0
    /// Bytes dropped since sync was lost (0: in sync).
    private var droppedRun = 0

    public init() {}

    /// Appends bytes from the transport; `next()` hands out the packets
    /// they complete. (No array of packets per read: the receive path
    /// takes them one at a time.)
    public mutating func append(_ bytes: [UInt8]) {
        // The core's way in: an array. With nothing held from earlier reads
        // (a read usually ends where a packet ends) the array itself
        // becomes the buffer and its packets are read where they lie in
        // it, not copied into the framer's own; otherwise it is copied in
        // one piece without going through the generic path below.
        if start == buffer.count {
            buffer = bytes
            start = 0
            return
        }
        compact()
        buffer.append(contentsOf: bytes)
    }

    public mutating func append<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        compact()
        // Reached through generic code from other modules, where appending
        // a Collection runs the standard library's unspecialised loop, one
        // element at a time through its witness table: contiguous bytes
        // (every transport's) are copied in one piece instead.
        if bytes.withContiguousStorageIfAvailable({ buffer.append(contentsOf: $0) }) == nil {
            buffer.append(contentsOf: bytes)
        }
    }

    /// The next complete packet, or nil when what is left is incomplete.
    public mutating func next() -> HCIPacket? {
        guard let packet = nextInPlace() else { return nil }
        return HCIPacket(type: packet.type, body: Array(packet.body))
    }

    /// The next complete packet where it lies in the framer's buffer: the
    /// host's receive path reads it there instead of copying each packet
    /// into an array of its own, and hands a frame that came in one ACL
    /// packet on as a slice of it. Let go of the body before appending
    /// again, or the append copies the buffer.
    mutating func nextInPlace() -> (type: HCIPacketType, body: ArraySlice<UInt8>)? {
        guard let found = nextPacket() else { return nil }
        return (found.type, buffer[found.body])
    }

    /// Appends bytes from the transport and returns every packet now complete.
    public mutating func push<C: Collection>(_ bytes: C) -> [HCIPacket] where C.Element == UInt8 {
        append(bytes)
        var packets: [HCIPacket] = []
        while let packet = next() { packets.append(packet) }
        return packets
    }

    /// Bytes held waiting for the rest of a packet.
    public var pendingCount: Int { buffer.count - start }

    public mutating func reset() {
        buffer.removeAll(keepingCapacity: true)
        start = 0
        droppedRun = 0
    }

    /// The type and the body's place in `buffer` of the next complete packet.
    private mutating func nextPacket() -> (type: HCIPacketType, body: Range<Int>)? {
        while start < buffer.count {
            guard let type = HCIPacketType(rawValue: buffer[start]), type != .command else {
                // A controller never sends commands; treat that like any
                // other byte that cannot start a packet.
                // One line when sync is lost and one when it is back, not
                // one per byte: line noise can last for thousands of bytes.
                if droppedRun == 0 {
                    Log.warning("h4", "dropping byte 0x\(hex(buffer[start], digits: 2)) that starts no HCI packet (stream out of sync)")
                }
                droppedRun += 1
                droppedBytes += 1
                start += 1
                continue
            }
            let available = buffer.count - start - 1
            let header = type.headerLength
            guard available >= header else { return nil }
            let h = start + 1
            let payloadLength: Int
            switch type {
            case .event: payloadLength = Int(buffer[h + 1])
            case .aclData, .isoData: payloadLength = Int(buffer[h + 2]) | Int(buffer[h + 3] & (type == .isoData ? 0x3F : 0xFF)) << 8
            case .scoData: payloadLength = Int(buffer[h + 2])
            case .command: payloadLength = Int(buffer[h + 2])
            }
            guard available >= header + payloadLength else { return nil }
            let body = h..<(h + header + payloadLength)
            start = body.upperBound
            if droppedRun > 0 {
                Log.warning("h4", "stream back in sync after \(droppedRun) dropped bytes")
                droppedRun = 0
            }
            return (type, body)
        }
        // Every packet taken: let go of the bytes, so that a transport
        // that keeps one array for its reads (`HCIDriver`) reads into it
        // again instead of copying it (the next append takes whatever
        // comes as the buffer).
        if !buffer.isEmpty {
            buffer = []
            start = 0
        }
        return nil
    }

    /// Drops the bytes taken once they pass 4 KiB, not on every read: a
    /// call into the standard library per read cost more than the few
    /// KiB kept. Called when bytes are appended, not when the last packet
    /// is taken: the receive path hands frames on as slices of the buffer,
    /// let go of by the time the next bytes come, so the buffer is changed
    /// in place instead of copied.
    private mutating func compact() {
        guard start >= 4096 else { return }
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: true)
        } else {
            buffer.removeFirst(start)
        }
        start = 0
    }
}

extension HCIPacketType {
    /// Header bytes after the type byte, up to and including the length field.
    var headerLength: Int {
        switch self {
        case .command: return 3
        case .aclData: return 4
        case .scoData: return 3
        case .event: return 2
        case .isoData: return 4
        }
    }
}
