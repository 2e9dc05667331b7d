import ANCS
import ATT
import BluetoothCore
import GATT
import HCI
import L2CAP
import Notifications

/// The receive path of the head unit, wired as Sources/App wires it: the
/// HCI host (H4 parsing, ACL reassembly, flow control), L2CAP, the GATT
/// bearer, the ANCS client and the notification model. The App's glue
/// (AppleServices, HeadUnit.pump) is repeated here in its smallest form:
/// ANCS actions become GATT procedures, GATT answers go back to the client,
/// ANCS events go to the model. No event loop and no clock: time stands still.
final class Stack {
    let host = Host()
    var l2cap = L2CAPLayer()
    let link = ConnectionHandle(0x0040)
    let bearer: GATTBearer
    let model = NotificationModel()
    let ancs: ANCSClient
    let now = Instant(milliseconds: 1_000)
    /// Where the phone's ANCS characteristics are (skipping discovery, which is setup).
    let handles: [ANCSCharacteristic: (value: AttributeHandle, cccd: AttributeHandle?)] = [
        .notificationSource: (AttributeHandle(0x0010), AttributeHandle(0x0011)),
        .controlPoint: (AttributeHandle(0x0013), nil),
        .dataSource: (AttributeHandle(0x0015), AttributeHandle(0x0016)),
    ]
    /// What the host writes to the controller.
    var onTransmit: (HCIPacket) -> Void = { _ in }
    private(set) var shown = 0
    private(set) var removed = 0

    init() {
        bearer = GATTBearer(handle: link, database: GATTDatabase(deviceName: "NavigationNotifier HU-BENCH"))
        let model = self.model
        ancs = ANCSClient(connection: link, wantsText: { model.wantsText($0) })
    }

    /// One H4 packet from the controller, then everything it causes.
    func receive(_ h4: [UInt8]) {
        host.receive(h4, now: now)
        pump()
    }

    func pump() {
        var progressed = true
        while progressed {
            progressed = false
            while let event = host.pollEvent() {
                progressed = true
                switch event {
                case .connected(let l):
                    l2cap.linkConnected(L2CAPLink(handle: l.handle, role: l.role, peer: l.peer))
                case let .l2capFrame(handle, frame):
                    l2cap.receive(frame, on: handle)
                default:
                    break
                }
            }
            while let event = l2cap.pollEvent() {
                progressed = true
                switch event {
                case let .transmit(handle, frame): host.sendL2CAP(frame, on: handle)
                case let .att(_, pdu): bearer.receive(pdu)
                case .smp, .updateConnectionParameters: break
                }
            }
            while let pdu = bearer.pollTransmit(now: now) {
                progressed = true
                l2cap.send(pdu, on: link, channel: .att)
            }
            while let action = ancs.pollAction() {
                progressed = true
                perform(action)
            }
            while let event = model.pollEvent() {
                progressed = true
                switch event.action {
                case .shown, .updated: shown += 1
                case .removed: removed += 1
                default: break
                }
            }
            while let packet = host.pollTransmit(now: now) {
                progressed = true
                onTransmit(packet)
            }
        }
    }

    private func perform(_ action: ANCSAction) {
        switch action {
        case .discover:
            ancs.discoveryCompleted(.found(Set(ANCSCharacteristic.allCases)), now: now)
        case let .subscribe(_, characteristic):
            guard let h = handles[characteristic], let cccd = h.cccd else { return }
            bearer.subscribe(valueHandle: h.value, cccd: cccd, onValue: { [unowned self] value in
                if characteristic == .notificationSource {
                    ancs.notificationSourceReceived(value, now: now)
                } else {
                    ancs.dataSourceReceived(value, now: now)
                }
            }) { [unowned self] result in
                ancs.subscribeCompleted(characteristic, RemoteOperationResult(result), now: now)
            }
        case let .unsubscribe(_, characteristic):
            guard let h = handles[characteristic], let cccd = h.cccd else { return }
            bearer.unsubscribe(valueHandle: h.value, cccd: cccd) { [unowned self] result in
                ancs.unsubscribeCompleted(characteristic, RemoteOperationResult(result), now: now)
            }
        case let .writeControlPoint(_, bytes):
            guard let h = handles[.controlPoint] else { return }
            bearer.write(h.value, value: bytes) { [unowned self] result in
                ancs.controlPointWriteCompleted(RemoteOperationResult(result), now: now)
            }
        case .event(let event):
            model.handle(event)
            ancs.setNotificationsExpected(model.expectsUpdates, now: now)
        }
    }
}
