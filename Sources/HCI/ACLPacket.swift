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
        // Read in place (every received ACL packet passes here): the four
        // header bytes, then one copy of the data.
        guard body.count >= 4, Int(body[2]) | Int(body[3]) << 8 == body.count - 4 else { return nil }
        let header = UInt16(body[0]) | UInt16(body[1]) << 8
        handle = ConnectionHandle(header & 0x0FFF)
        boundary = PacketBoundary(rawValue: UInt8((header >> 12) & 0x3)) ?? .continuing
        data = Array(body[4...])
    }

    public var packet: HCIPacket {
        var w = ByteWriter(capacity: 4 + data.count)
        w.u16(handle.value | UInt16(boundary.rawValue) << 12)
        w.u16(UInt16(data.count))
        w.append(data)
        return HCIPacket(type: .aclData, body: w.bytes)
    }

    /// Cuts a complete L2CAP frame into ACL packets no larger than the
    /// controller's LE ACL data length.
    public static func fragments(of frame: [UInt8], handle: ConnectionHandle, maxLength: Int) -> [ACLPacket] {
        let size = max(1, maxLength)
        var packets: [ACLPacket] = []
        var offset = 0
        repeat {
            let end = min(frame.count, offset + size)
            packets.append(ACLPacket(handle: handle, boundary: offset == 0 ? .firstNonFlushable : .continuing,
                                     data: Array(frame[offset..<end])))
            offset = end
        } while offset < frame.count
        return packets
    }
}

/// Rebuilds one link's L2CAP frames from its ACL fragments. The L2CAP
/// basic header's length says when a frame is complete; a frame whose
/// fragments overrun that length, a continuation with no start, or a start
/// that interrupts an unfinished frame is dropped with a log line.
public struct ACLFrameAssembly {
    /// The frame in the making, nil between frames.
    private var partial: [UInt8]?
    public fileprivate(set) var droppedFrames = 0

    public init() {}

    /// No frame in the making.
    public var isIdle: Bool { partial == nil }

    /// Feeds one ACL packet; returns a complete L2CAP frame (header included) when one is done.
    public mutating func push(_ packet: ACLPacket) -> [UInt8]? {
        if packet.boundary.startsFrame || packet.boundary == .complete {
            if let stale = partial, !stale.isEmpty {
                Log.warning("acl", "link \(packet.handle): new frame started with \(stale.count) bytes of the previous one missing their end; dropped")
                droppedFrames += 1
            }
            partial = nil
            guard let expected = ACLFrameAssembly.frameLength(packet.data) else {
                partial = packet.data
                return nil
            }
            // A frame in one packet (the usual case with Data Length
            // Extension) is handed on as it came, never stored.
            if packet.data.count >= expected {
                return complete(packet.data, expected: expected, on: packet.handle)
            }
            // Room for the whole frame at once, so the fragments that
            // follow are appended without the storage growing again.
            var frame: [UInt8] = []
            frame.reserveCapacity(expected)
            frame.append(contentsOf: packet.data)
            partial = frame
            return nil
        }
        guard partial != nil else {
            Log.warning("acl", "link \(packet.handle): continuation fragment without a start; dropped \(packet.data.count) bytes")
            droppedFrames += 1
            return nil
        }
        // Appended where the partial frame lies: no copy of the whole frame per fragment.
        partial!.append(contentsOf: packet.data)
        guard let frame = partial, let expected = ACLFrameAssembly.frameLength(frame), frame.count >= expected else { return nil }
        partial = nil
        return complete(frame, expected: expected, on: packet.handle)
    }

    /// The whole frame's length (L2CAP basic header included) once its
    /// length field is in, nil before.
    private static func frameLength(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 2 else { return nil }
        return Int(UInt16(bytes[0]) | UInt16(bytes[1]) << 8) + 4
    }

    private mutating func complete(_ frame: [UInt8], expected: Int, on handle: ConnectionHandle) -> [UInt8]? {
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
