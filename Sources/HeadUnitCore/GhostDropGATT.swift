import ATT
import BluetoothCore
import GATT
import GhostDrop
import L2CAP

/// Where GhostDrop's GATT service sits in the head unit's database.
struct GhostDropGATTHandles {
    /// The service's handles: the writes the core takes for GhostDrop.
    let service: AttributeHandleRange
    /// Notify, Write Without Response: data frames in, every frame out.
    let data: AttributeHandle
    /// Notify, Write: control frames in.
    let control: AttributeHandle
    /// Read: the capabilities JSON with the PSM.
    let capabilities: AttributeHandle
}

extension GATTDatabase {
    /// GhostDrop's service as the reference receiver publishes it
    /// (BLE/BLEPeripheralActor.swift): data and control take writes only on
    /// an encrypted link, as the L2CAP channel requires encryption; the
    /// capabilities, also what the reference advertises, are readable by
    /// anyone. Their value is set once the channel's SPSM is known.
    func addGhostDropService() -> GhostDropGATTHandles {
        let start = addService(GhostDropService.service)
        let data = addCharacteristic(GhostDropService.data, properties: [.notify, .writeWithoutResponse], permissions: [.write, .encrypted])
        let control = addCharacteristic(GhostDropService.control, properties: [.notify, .write], permissions: [.write, .encrypted])
        let capabilities = addCharacteristic(GhostDropService.capabilities, properties: .read, permissions: .read)
        return GhostDropGATTHandles(service: AttributeHandleRange(start: start, end: lastHandle),
                                    data: data, control: control, capabilities: capabilities)
    }
}

/// GhostDrop over GATT, the fallback when the sender does not open the
/// L2CAP channel: one session per link, fed with the frames its writes on
/// data and control join to (`PhoneLink.ghostDropFragments`), its frames
/// notified on data in values of at most ATT_MTU − 3 bytes. The sessions
/// are `GhostDropChannel`'s, as the channel's are: the same receiver,
/// events, file and resume state, and the same rule about who may send.
extension HeadUnitCore {
    /// The capabilities value: the L2CAP channel and its SPSM when one was
    /// published (the reference's `BLEAdvertisementCapabilities`).
    func publishGhostDropCapabilities() {
        let capabilities = GhostCapabilities(supportsL2CAP: ghostDrop.spsm != nil)
        database.setValue(GhostJSON.advertisement(capabilities, psm: ghostDrop.spsm?.rawValue), at: ghostDropGATT.capabilities)
    }

    /// From `pumpLink`, before NotifBridge takes the other writes: the
    /// phone's writes to GhostDrop's characteristics on `link`. True when
    /// there were any.
    func takeGhostDropWrites(on link: PhoneLink, now: Instant) -> Bool {
        guard link.attReceived else { return false }
        var moved = false
        while let write = link.bearer.server.pollWrite(in: ghostDropGATT.service) {
            moved = true
            guard write.handle == ghostDropGATT.data || write.handle == ghostDropGATT.control else { continue }
            let frame: [UInt8]?
            do {
                frame = try link.ghostDropFragments.receive(write.value, now: now)
            } catch {
                Log.warning("ghostdrop", "\(write.value.count)-byte value on \(link.handle): \(error)")
                ghostDrop.gattFailed(link.handle, reason: "\(error)", now: now)
                continue
            }
            if let frame { ghostDrop.gattReceived(frame, on: link.handle, refusal: ghostDropRefusal(link.handle), now: now) }
        }
        return moved
    }

    /// From `pumpChannels`: the receivers' frames for GATT senders,
    /// notified on data and sent on at once (the links' round is over).
    func notifyGhostDropFrames(now: Instant) -> Bool {
        var moved = false
        while let (handle, frame) = ghostDrop.gattOutgoing.popFirst() {
            moved = true
            guard let link = links[handle] else { continue }
            let packetSize = link.bearer.mtu - 3
            for value in link.ghostDropFragments.fragments(of: frame, packetSize: packetSize, control: false)
            where !link.bearer.notify(value, at: ghostDropGATT.data) {
                Log.warning("ghostdrop", "\(frame.count)-byte frame for \(handle) dropped: no notifications on data")
                break
            }
            while let pdu = link.bearer.pollTransmit(now: now) { l2cap.send(pdu, on: handle, channel: .att) }
        }
        return moved
    }
}

extension GhostDropChannel {
    /// A whole frame a GATT sender wrote on link `handle`. A `hello` starts
    /// a new session (the sender's previous one, if any, ends as at a
    /// disconnect, so it may resume); any other frame goes to the link's
    /// session, or to a new one that refuses it.
    mutating func gattReceived(_ frame: [UInt8], on handle: ConnectionHandle, refusal: String?, now: Instant) {
        bytesReceived += frame.count
        let hello = frame.count > 5 && frame[5] == GhostFrameKind.hello.rawValue
        if hello { end(.gatt(handle), now: now) }
        var index = channels.firstIndex(where: { $0.carrier.key == .gatt(handle) })
        if index == nil {
            Log.info("ghostdrop", "a sender on \(handle) started over GATT")
            start(.gatt(handle), refusal: refusal, now: now)
            // A refused sender's session was cancelled at its start.
            guard refusal == nil else { return }
            index = channels.count - 1
        }
        guard let index else { return }
        channels[index].receiver.receive(frame, now: now)
        drain(index, now: now)
    }

    /// A value on link `handle` that is no GhostDrop fragment: its session
    /// (if one runs) is cancelled with the reason.
    mutating func gattFailed(_ handle: ConnectionHandle, reason: String, now: Instant) {
        guard let index = channels.firstIndex(where: { $0.carrier.key == .gatt(handle) }),
              !channels[index].receiver.isFinished else { return }
        channels[index].receiver.cancel(reason: reason, now: now)
        drain(index, now: now)
    }
}
