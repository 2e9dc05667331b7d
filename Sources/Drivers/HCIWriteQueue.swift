import HCI

/// The H4 bytes waiting to go to the controller, and how they are cut into
/// write(2) calls. A stream (TCP, UART) takes everything queued in one
/// write: each write to a loopback TCP peer costs the kernel a full delivery
/// to the simulator, so the packets one wake-up produces go out together. A
/// user-channel socket takes exactly one packet per write, as the kernel
/// requires.
///
/// The packets are appended to one buffer that keeps its storage once
/// everything has been written, so the transmit path allocates nothing in
/// the steady state (no array per packet).
struct HCIWriteQueue {
    let packetOriented: Bool
    private var bytes: [UInt8] = []
    /// Where each queued packet ends in `bytes` (packet-oriented only).
    private var packetEnds: [Int] = []
    private var nextPacket = 0
    /// Bytes of `bytes` already written.
    private var sent = 0

    init(packetOriented: Bool) {
        self.packetOriented = packetOriented
    }

    var isEmpty: Bool { sent == bytes.count }

    mutating func append(_ packet: HCIPacket) {
        bytes.append(packet.type.rawValue)
        bytes.append(contentsOf: packet.body)
        if packetOriented { packetEnds.append(bytes.count) }
    }

    /// The bytes for the next write(2): all of them on a stream, the next
    /// packet on a packet socket. Empty when nothing is queued.
    var nextWrite: ArraySlice<UInt8> {
        let end = packetOriented && nextPacket < packetEnds.count ? packetEnds[nextPacket] : bytes.count
        return bytes[sent..<end]
    }

    /// `count` bytes of `nextWrite` were taken. A packet socket takes a
    /// packet whole or not at all, so any count there finishes the packet.
    mutating func written(_ count: Int) {
        if packetOriented && nextPacket < packetEnds.count {
            sent = packetEnds[nextPacket]
            nextPacket += 1
        } else {
            sent = min(sent + count, bytes.count)
        }
        if sent == bytes.count {
            removeAll()
        } else if sent >= 4096 {
            // A transport that stays slow: drop what it took so the buffer stays bounded.
            bytes.removeFirst(sent)
            packetEnds.removeFirst(nextPacket)
            for i in packetEnds.indices { packetEnds[i] -= sent }
            nextPacket = 0
            sent = 0
        }
    }

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        // Empty on a stream: asking cost as much as the bytes' reset.
        if !packetEnds.isEmpty { packetEnds.removeAll(keepingCapacity: true) }
        nextPacket = 0
        sent = 0
    }
}
