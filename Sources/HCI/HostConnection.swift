import BluetoothCore

/// Everything the host keeps for one LE link, in one value (NimBLE's
/// `ble_hs_conn`, BTstack's `hci_connection_t`): what the controller said
/// about the link, its ACL packets waiting for a controller buffer and
/// those in the controller's buffers, and the L2CAP frame it is sending us.
/// Made on Connection Complete and removed whole when the link ends
/// (`Host.linkGone`), so nothing of a link outlives it.
struct HostConnection {
    var link: Link
    /// Our ACL packets waiting for a controller buffer, oldest first,
    /// written as they will be sent.
    var aclQueue = FIFO<HCIPacket>()
    /// Our ACL packets in the controller's buffers: Number Of Completed
    /// Packets returns them, and the link's end returns them all.
    var aclInFlight = 0
    /// The peer's L2CAP frame in the making.
    var reassembly = ACLFrameAssembly()

    init(_ link: Link) { self.link = link }

    /// Cuts an L2CAP frame into ACL packets of at most `maxLength` bytes
    /// of data and queues them: each packet is written once, straight
    /// from the frame.
    mutating func queue(_ frame: [UInt8], maxLength: Int) {
        let handle = link.handle
        ACLPacket.cut(length: frame.count, maxLength: maxLength) { range, boundary in
            aclQueue.append(ACLPacket.packet(handle: handle, boundary: boundary, data: frame[range]))
        }
    }

    /// Queues an ACL packet written whole by the caller (a frame that fits one).
    mutating func queue(_ packet: HCIPacket) {
        aclQueue.append(packet)
    }

    /// The next queued packet, counted in flight; nil when none waits.
    mutating func takeACLPacket() -> HCIPacket? {
        guard let packet = aclQueue.popFirst() else { return nil }
        aclInFlight += 1
        return packet
    }

    /// Number Of Completed Packets for this link: how many it returns to
    /// the controller's pool (never more than were in flight).
    mutating func completed(_ count: Int) -> Int {
        let returned = min(count, aclInFlight)
        if returned < count {
            Log.warning("hci", "controller completed \(count) packets on \(link.handle) but only \(aclInFlight) were in flight")
        }
        aclInFlight -= returned
        return returned
    }
}
