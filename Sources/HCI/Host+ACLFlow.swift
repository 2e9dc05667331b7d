import BluetoothCore

/// ACL flow control: our L2CAP frames are cut to the controller's ACL size,
/// queued per link and sent round robin while the controller has buffers;
/// Number Of Completed Packets gives the buffers back. The peer's
/// fragments are put together per link (`ACLFrameAssembly`).
extension Host {
    /// Queues a complete L2CAP frame for a link; it is cut to the
    /// controller's ACL size and sent as buffers free up.
    public func sendL2CAP(_ frame: consuming [UInt8], on handle: ConnectionHandle) {
        guard connections.contains(handle) else {
            Log.debug("hci", "frame for link \(handle), which is gone; dropped")
            return
        }
        // `update` changes the link's entry where it lies; the optional
        // subscript would move it out of the table and back in.
        let maxLength = controller.aclDataLength
        if frame.count <= maxLength {
            // One packet (most frames): its header is put in front of the
            // frame in the frame's own storage, which has room for it when
            // the frame came from the ATT bearer; no copy into a new array.
            let length = UInt16(frame.count)
            frame.putInFront(handle.value | UInt16(PacketBoundary.firstNonFlushable.rawValue) << 12, length)
            let packet = HCIPacket(type: .aclData, body: frame)
            connections.update(handle) { $0.queue(packet) }
        } else {
            let whole = frame
            connections.update(handle) { $0.queue(whole, maxLength: maxLength) }
        }
        pumpACL()
    }

    /// ACL packets waiting for controller buffers, over all links.
    public var queuedACLPackets: Int {
        var count = 0
        for (_, connection) in connections { count += connection.aclQueue.count }
        return count
    }

    /// Sends queued packets while the controller has buffers, one link
    /// after the other, so that a long write on one link does not hold
    /// up the others.
    func pumpACL() {
        var idle = 0 // links passed over in a row with nothing queued
        while aclCredits > 0, idle < connections.count {
            if aclNext >= connections.count { aclNext = 0 }
            let handle = connections.keys[aclNext]
            aclNext += 1
            guard let packet = connections.update(handle, { $0.takeACLPacket() }) ?? nil else {
                idle += 1
                continue
            }
            idle = 0
            aclCredits -= 1
            transmit(packet)
        }
    }

    /// Number Of Completed Packets: the controller's buffers free again.
    func packetsCompleted(_ entries: CompletedPackets) {
        for (handle, count) in entries {
            guard let returned = connections.update(handle, { $0.completed(Int(count)) }) else {
                if count > 0 {
                    Log.warning("hci", "controller completed \(count) packets on \(handle) but only 0 were in flight")
                }
                continue
            }
            aclCredits = min(controller.aclBufferCount, aclCredits + returned)
        }
        pumpACL()
    }

    /// An ACL packet's data from the controller: a fragment of the peer's
    /// frame, read where it lies in the framer's buffer.
    func receiveACL(_ data: ArraySlice<UInt8>, boundary: PacketBoundary, on handle: ConnectionHandle) {
        guard let pushed = connections.update(handle, { $0.reassembly.push(data, boundary: boundary, on: handle) }) else {
            Log.debug("hci", "ACL data for unknown link \(handle) dropped")
            return
        }
        if let frame = pushed {
            emit(.l2capFrame(handle: handle, frame: frame))
        }
    }
}
