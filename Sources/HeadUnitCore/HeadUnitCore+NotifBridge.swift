import BluetoothCore
import GATT
import HCI
import NavigationNotifier
import NotifBridge
import Notifications

/// The NotifBridge receiver of the head unit (docs/NOTIFBRIDGE.md): one
/// receiver for the life of the core, so its key ring, dedupe and ordering
/// outlive every link; the service in the core's GATT database; and the
/// intake that puts what it decrypts into the ANCS notification model.
final class NotifBridgeHost {
    let handles: NotifBridgeHandles
    let receiver: NotifBridgeReceiver<HPKECryptography>
    let intake: BridgedNotificationIntake

    init(database: GATTDatabase, keys: [UInt8]?, model: NotificationModel, random: RandomSource, now: Instant) {
        receiver = NotifBridgeReceiver(random: random)
        handles = database.addNotifBridgeService()
        intake = BridgedNotificationIntake(model: model)
        if let keys { receiver.loadKeys(keys, now: now) }
    }
}

/// The head unit's side of NotifBridge: a phone connected to us (we are the
/// peripheral) writes key packets and envelopes; the receiver's indications
/// go back on that link, its key file to the shell, its events into the
/// same model as ANCS.
extension HeadUnitCore {
    /// From `linkUp`: a link on which the phone is the central gets the
    /// service's traffic. One phone at a time: the receiver has one
    /// subscription and one set of half frames.
    func notifBridgeLinkUp(_ phone: PhoneLink) {
        guard let notifBridge, phone.role == .peripheral else { return }
        if let other = links.values.first(where: { $0 !== phone && $0.notifBridge != nil }) {
            Log.info("notifbridge", "already served on link \(other.handle); not on \(phone.handle)")
            return
        }
        phone.notifBridge = NotifBridgeLink(handles: notifBridge.handles, receiver: notifBridge.receiver)
    }

    /// From `linkDown`. What the phone forwarded goes from the screen with
    /// the link, as ANCS's does: NotifBridge does not send it again on
    /// reconnection, and a turn instruction left standing would be stale.
    func notifBridgeLinkDown(_ phone: PhoneLink?) {
        guard let notifBridge, let phone, phone.notifBridge != nil else { return }
        phone.notifBridge = nil
        notifBridge.receiver.disconnected()
        notifBridge.intake.removedAll()
    }

    /// The shell wrote the key file (`StateWrite.notifBridgeKeys`), or
    /// failed to: only a stored ring releases the receipts of its packets.
    public func keysStored(ok: Bool, now: Instant) {
        clock.now = now
        notifBridge?.receiver.keysStored(ok: ok)
        pump()
    }

    /// Moves the phone's writes on `link` into the receiver and the
    /// receiver's indications onto it; key files to the shell, events into
    /// the model. Only a link whose bearer took ATT PDUs since can have
    /// writes, and only the link that carries NotifBridge takes the
    /// receiver's output: the rest of the time this is two tests. True
    /// when anything happened.
    func pumpNotifBridge(on link: PhoneLink, now: Instant) -> Bool {
        let fed = link.attReceived
        link.attReceived = false
        guard let notifBridge else { return false }
        guard let bridge = link.notifBridge else {
            guard fed else { return false }
            // The service is in the one database every link serves; writes
            // on a link that does not carry NotifBridge go nowhere.
            while let write = link.bearer.server.pollWrite() {
                Log.info("notifbridge", "\(write.value.count)-byte write on link \(link.handle), which does not carry NotifBridge: dropped")
            }
            return false
        }
        guard fed || notifBridge.receiver.hasOutput else { return false }
        let outputs = bridge.pump(link.bearer, now: now)
        for output in outputs { carryOut(output, from: notifBridge) }
        emitNotificationEvents()
        return !outputs.isEmpty
    }

    /// The receiver's output while no link carries NotifBridge (a grace
    /// ended: it still stores its ring); its indications go nowhere.
    func drainNotifBridgeReceiver() {
        guard let notifBridge, notifBridge.receiver.hasOutput else { return }
        if links.values.contains(where: { $0.notifBridge != nil }) { return }
        while let output = notifBridge.receiver.pollOutput() {
            carryOut(output, from: notifBridge)
        }
        emitNotificationEvents()
    }

    private func carryOut(_ output: NotifBridgeOutput, from notifBridge: NotifBridgeHost) {
        switch output {
        case .indicate:
            break
        case .storeKeys(let bytes):
            write(.notifBridgeKeys(bytes))
        case .event(let event):
            bridged(event, into: notifBridge)
        }
    }

    private func bridged(_ event: NotifBridgeEvent, into host: NotifBridgeHost) {
        switch event {
        case .add(let n), .update(let n):
            // Text of apps outside the filter goes no further than the intake.
            let shown = host.intake.received(app: n.identity.sourceIdentifier, notificationID: n.identity.notificationIdentifier,
                                             appName: n.sourceName, title: n.title, subtitle: n.subtitle, body: n.body)
            if shown { host.receiver.displayed(n.identity, didAlert: false) }
        case .remove(let identity):
            host.intake.removed(app: identity.sourceIdentifier, notificationID: identity.notificationIdentifier)
        case .removeAll:
            host.intake.removedAll()
        }
    }
}
