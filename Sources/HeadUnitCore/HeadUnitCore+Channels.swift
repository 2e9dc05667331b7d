import BluetoothCore
import L2CAP

/// The L2CAP credit based channels the head unit publishes: GhostDrop's.
extension HeadUnitCore {
    /// Once, at init.
    func publishChannels() {
        ghostDrop.spsm = l2cap.publish(GhostDropChannel.service)
        if let spsm = ghostDrop.spsm {
            Log.info("ghostdrop", "L2CAP \(spsm) published for GhostDrop (encryption required)")
        }
        publishGhostDropCapabilities()
    }

    /// What the channels produced and what goes back on them. True when anything moved.
    func pumpChannels() -> Bool {
        var progressed = false
        while let event = l2cap.pollChannelEvent() {
            progressed = true
            switch event {
            case let .opened(channel, peerMTU):
                if channel.spsm == ghostDrop.spsm {
                    ghostDrop.opened(channel, peerMTU: peerMTU, refusal: ghostDropRefusal(channel.handle), now: clock.now)
                }
            case .received(let sdu):
                if sdu.channel.spsm == ghostDrop.spsm { ghostDrop.received(sdu, now: clock.now) }
            case let .closed(channel, why):
                if channel.spsm == ghostDrop.spsm { ghostDrop.closed(channel, why, now: clock.now) }
            }
        }
        while let report = ghostDrop.reports.popFirst() {
            progressed = true
            emit(.ghostDrop(report))
        }
        while let op = ghostDrop.fileOps.popFirst() {
            progressed = true
            write(.ghostDrop(op))
        }
        while let sdu = ghostDrop.outgoing.popFirst() {
            progressed = true
            l2cap.sendSDU(sdu.bytes, on: sdu.channel)
        }
        progressed = notifyGhostDropFrames(now: clock.now) || progressed
        return progressed
    }

    /// Files come only from the head unit's phone (bonded, encrypted),
    /// or from any phone while pairing mode is open; the reason the sender
    /// shows otherwise.
    func ghostDropRefusal(_ handle: ConnectionHandle) -> String? {
        if links[handle]?.isThePhone == true || accessory?.pairingOpen == true { return nil }
        return "Only the head unit's paired phone may send files"
    }
}
