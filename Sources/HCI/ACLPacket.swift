import BluetoothCore

/// Packet Boundary flag of an ACL packet. On LE links only three values
/// occur: a host starts a frame with `firstNonFlushable`, a controller with
/// `firstFlushable`, and both continue it with `continuing`.
public enum PacketBoundary: UInt8 {
    case firstNonFlushable = 0b00
    case continuing = 0b01
    case firstFlushable = 0b10
    case complete = 0b11

    var startsFrame: Bool { self == .firstNonFlushable || self == .firstFlushable }
}

/// One ACL data packet: a fragment of an L2CAP frame.
public struct ACLPacket: Equatable {
    public var handle: ConnectionHandle
    public var boundary: PacketBoundary
    public var data: [UInt8]

    public init(handle: ConnectionHandle, boundary: PacketBoundary, data: [UInt8]) {
        self.handle = handle
        self.boundary = boundary
        self.data = data
    }

    public init?(body: [UInt8]) {
        guard case let (handle, boundary)? = ACLPacket.header(of: body[...]) else { return nil }
        self.init(handle: handle, boundary: boundary, data: Array(body.dropFirst(4)))
    }

    /// The header's fields of an ACL packet's body, read where it lies
    /// (every received ACL packet passes here); nil when the length field
    /// disagrees with the bytes. The data is the body after 4 bytes. (Not
    /// an optional holding the data too: destroying such an optional costs
    /// a call through the standard library's generic Optional, about 90
    /// instructions a packet.)
    static func header(of body: ArraySlice<UInt8>) -> (ConnectionHandle, PacketBoundary)? {
        let at = body.startIndex
        guard body.count >= 4, Int(body[at + 2]) | Int(body[at + 3]) << 8 == body.count - 4 else { return nil }
        let header = UInt16(body[at]) | UInt16(body[at + 1]) << 8
        return (ConnectionHandle(header & 0x0FFF), PacketBoundary(rawValue: UInt8((header >> 12) & 0x3)) ?? .continuing)
    }

    public var packet: HCIPacket { ACLPacket.packet(handle: handle, boundary: boundary, data: data[...]) }

    /// The HCI packet of one fragment, written straight from the frame it
    /// is cut from (one array per packet sent).
    static func packet(handle: ConnectionHandle, boundary: PacketBoundary, data: ArraySlice<UInt8>) -> HCIPacket {
        var w = ByteWriter(capacity: 4 + data.count)
        w.u16(handle.value | UInt16(boundary.rawValue) << 12)
        w.u16(UInt16(data.count))
        w.append(data)
        return HCIPacket(type: .aclData, body: w.bytes)
    }

    /// Cuts a frame of `count` bytes into fragments of at most `maxLength`
    /// bytes: `fragment` gets each one's range and boundary flag, in order
    /// (one, empty, for an empty frame).
    static func cut(length count: Int, maxLength: Int, _ fragment: (Range<Int>, PacketBoundary) -> Void) {
        let size = max(1, maxLength)
        var offset = 0
        repeat {
            let end = min(count, offset + size)
            fragment(offset..<end, offset == 0 ? .firstNonFlushable : .continuing)
            offset = end
        } while offset < count
    }

    /// Cuts a complete L2CAP frame into ACL packets no larger than the
    /// controller's LE ACL data length.
    public static func fragments(of frame: [UInt8], handle: ConnectionHandle, maxLength: Int) -> [ACLPacket] {
        var packets: [ACLPacket] = []
        cut(length: frame.count, maxLength: maxLength) { range, boundary in
            packets.append(ACLPacket(handle: handle, boundary: boundary, data: Array(frame[range])))
        }
        return packets
    }
}

/// Rebuilds one link's L2CAP frames from its ACL fragments. The L2CAP
/// basic header's length says when a frame is complete; a frame whose
/// fragments overrun that length, a continuation with no start, or a start
/// that interrupts an unfinished frame is dropped with a log line.
public struct ACLFrameAssembly {
    /// The frame in the making while `assembling`. Its storage is kept
    /// between frames and reused: the frame handed on last is a slice of
    /// it, let go of (its ATT value copied out) by the time the next
    /// frame starts, so a frame in several packets costs no allocation.
    private var partial: [UInt8] = []
    private var assembling = false
    public fileprivate(set) var droppedFrames = 0

    public init() {}

    /// No frame in the making.
    public var isIdle: Bool { !assembling }

    /// Feeds one ACL packet; returns a complete L2CAP frame (header included) when one is done.
    public mutating func push(_ packet: ACLPacket) -> [UInt8]? {
        push(packet.data[...], boundary: packet.boundary, on: packet.handle).map { Array($0) }
    }

    /// Feeds one ACL packet's data, read where it lies (the host's receive
    /// path hands the data in the H4 framer's buffer). A frame that came
    /// in one packet is handed on where it lies, not copied; one that came
    /// in several is put together once, in the array whose slice is
    /// handed on.
    mutating func push(_ data: ArraySlice<UInt8>, boundary: PacketBoundary, on handle: ConnectionHandle) -> ArraySlice<UInt8>? {
        if boundary.startsFrame || boundary == .complete {
            if assembling, !partial.isEmpty {
                Log.warning("acl", "link \(handle): new frame started with \(partial.count) bytes of the previous one missing their end; dropped")
                droppedFrames += 1
            }
            assembling = false
            // A frame in one packet (the usual case with Data Length
            // Extension) is handed on at once, never stored.
            if let expected = ACLFrameAssembly.frameLength(data), data.count >= expected {
                return complete(data, expected: expected, on: handle)
            }
            // Room for the whole frame at once, so the fragments that
            // follow are appended without the storage growing again.
            partial.removeAll(keepingCapacity: true)
            if let expected = ACLFrameAssembly.frameLength(data) { partial.reserveCapacity(expected) }
            partial.append(contentsOf: data)
            assembling = true
            return nil
        }
        guard assembling else {
            Log.warning("acl", "link \(handle): continuation fragment without a start; dropped \(data.count) bytes")
            droppedFrames += 1
            return nil
        }
        // Appended where the partial frame lies: no copy of the whole frame per fragment.
        partial.append(contentsOf: data)
        guard let expected = ACLFrameAssembly.frameLength(partial[...]), partial.count >= expected else { return nil }
        assembling = false
        return complete(partial[...], expected: expected, on: handle)
    }

    /// The whole frame's length (L2CAP basic header included) once its
    /// length field is in, nil before.
    private static func frameLength(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= 2 else { return nil }
        return Int(UInt16(bytes[bytes.startIndex]) | UInt16(bytes[bytes.startIndex + 1]) << 8) + 4
    }

    /// The frame, or nil (and a log line) when its fragments carried more
    /// than its length says.
    private mutating func complete(_ frame: ArraySlice<UInt8>, expected: Int, on handle: ConnectionHandle) -> ArraySlice<UInt8>? {
        if frame.count > expected {
            Log.warning("acl", "link \(handle): L2CAP length says \(expected) bytes but fragments carried \(frame.count); frame dropped")
            droppedFrames += 1
            return nil
        }
        return frame
    }
}

/// `ACLFrameAssembly` for any number of links, one partial frame each.
public struct ACLReassembler {
    private var links = ConnectionTable<ACLFrameAssembly>()
    public private(set) var droppedFrames = 0

    public init() {}

    /// Feeds one ACL packet; returns a complete L2CAP frame (header included) when one is done.
    public mutating func push(_ packet: ACLPacket) -> [UInt8]? {
        var assembly = links.removeValue(forKey: packet.handle) ?? ACLFrameAssembly()
        let frame = assembly.push(packet)
        droppedFrames += assembly.droppedFrames
        assembly.droppedFrames = 0
        if !assembly.isIdle { links[packet.handle] = assembly }
        return frame
    }

    /// Forgets a link's partial frame (the link is gone).
    public mutating func drop(_ handle: ConnectionHandle) { links[handle] = nil }
    public mutating func dropAll() { links.removeAll() }
}
