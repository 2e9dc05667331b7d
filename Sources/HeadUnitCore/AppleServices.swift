import AMS
import ANCS
import ATT
import BluetoothCore
import GATT

/// Runs the ANCS and AMS clients of one encrypted link over its GATT
/// bearer: each action they emit becomes a GATT procedure, and its outcome
/// goes back as exactly one result call. Values the phone notifies are
/// routed to the client that subscribed to them.
final class AppleServices {
    let handle: ConnectionHandle
    let ancs: ANCSClient
    let ams: AMSClient
    private let bearer: GATTBearer
    /// The core's time: GATT answers arrive inside its inputs, at their `now`.
    private let clock: CoreClock
    private var ancsHandles: [BluetoothUUID: CharacteristicHandles] = [:]
    private var amsHandles: [BluetoothUUID: CharacteristicHandles] = [:]
    /// Called whenever a GATT answer arrived, so the owner pumps again.
    var onProgress: () -> Void = {}

    init(handle: ConnectionHandle, bearer: GATTBearer, ancs: ANCSClient, ams: AMSClient, clock: CoreClock) {
        self.handle = handle
        self.bearer = bearer
        self.clock = clock
        self.ancs = ancs
        self.ams = ams
    }

    func start(now: Instant) {
        ancs.start(now: now)
        ams.start(now: now)
    }

    /// The phone's GATT database changed (iOS publishes ANCS after bonding).
    func serviceChanged(now: Instant) {
        ancsHandles = [:]
        amsHandles = [:]
        ancs.serviceChanged(now: now)
        ams.serviceChanged(now: now)
    }

    func disconnected(now: Instant) {
        ancs.disconnected(now: now)
        ams.disconnected(now: now)
    }

    var nextDeadline: Instant? { earliest(ancs.nextDeadline, ams.nextDeadline) }

    func handleTimeout(now: Instant) {
        ancs.handleTimeout(now: now)
        ams.handleTimeout(now: now)
    }

    // MARK: - ANCS

    /// Performs a GATT action and returns the events to pass on.
    func perform(_ action: ANCSAction) -> ANCSEvent? {
        switch action {
        case .discover:
            ServiceDiscovery.discover(ANCSUUIDs.service, on: bearer) { [unowned(unsafe) self] outcome in
                let now = clock.now
                switch outcome {
                case .found(let found):
                    ancsHandles = found
                    ancs.discoveryCompleted(.found(Set(found.keys.compactMap { ANCSCharacteristic(uuid: $0) })), now: now)
                case .absent:
                    ancs.discoveryCompleted(.absent, now: now)
                case .failed:
                    ancs.discoveryCompleted(.failed, now: now)
                }
                onProgress()
            }
        case let .subscribe(_, characteristic):
            guard let h = ancsHandles[characteristic.uuid], let cccd = h.cccd else {
                ancs.subscribeCompleted(characteristic, .failed, now: clock.now)
                return nil
            }
            bearer.subscribe(valueHandle: h.value, cccd: cccd, onValue: { [unowned(unsafe) self] value in
                let now = clock.now
                if characteristic == .notificationSource {
                    ancs.notificationSourceReceived(value, now: now)
                } else {
                    ancs.dataSourceReceived(value, now: now)
                }
                onProgress()
            }) { [unowned(unsafe) self] result in
                ancs.subscribeCompleted(characteristic, remote(result), now: clock.now)
                onProgress()
            }
        case let .unsubscribe(_, characteristic):
            guard let h = ancsHandles[characteristic.uuid], let cccd = h.cccd else {
                ancs.unsubscribeCompleted(characteristic, .failed, now: clock.now)
                return nil
            }
            bearer.unsubscribe(valueHandle: h.value, cccd: cccd) { [unowned(unsafe) self] result in
                ancs.unsubscribeCompleted(characteristic, remote(result), now: clock.now)
                onProgress()
            }
        case let .writeControlPoint(_, bytes):
            guard let h = ancsHandles[ANCSUUIDs.controlPoint] else {
                ancs.controlPointWriteCompleted(.failed, now: clock.now)
                return nil
            }
            bearer.write(h.value, value: bytes) { [unowned(unsafe) self] result in
                ancs.controlPointWriteCompleted(remote(result), now: clock.now)
                onProgress()
            }
        case .event(let event):
            return event
        }
        return nil
    }

    // MARK: - AMS

    func perform(_ action: AMSAction) -> AMSEvent? {
        switch action {
        case .discover:
            ServiceDiscovery.discover(AMSUUIDs.service, on: bearer) { [unowned(unsafe) self] outcome in
                let now = clock.now
                switch outcome {
                case .found(let found):
                    amsHandles = found
                    ams.discoveryCompleted(.found(Set(found.keys.compactMap { AMSCharacteristic(uuid: $0) })), now: now)
                case .absent:
                    ams.discoveryCompleted(.absent, now: now)
                case .failed:
                    ams.discoveryCompleted(.failed, now: now)
                }
                onProgress()
            }
        case let .subscribe(_, characteristic):
            guard let h = amsHandles[characteristic.uuid], let cccd = h.cccd else {
                ams.subscribeCompleted(characteristic, .failed, now: clock.now)
                return nil
            }
            bearer.subscribe(valueHandle: h.value, cccd: cccd, onValue: { [unowned(unsafe) self] value in
                let now = clock.now
                if characteristic == .remoteCommand {
                    ams.remoteCommandReceived(value, now: now)
                } else {
                    ams.entityUpdateReceived(value, now: now)
                }
                onProgress()
            }) { [unowned(unsafe) self] result in
                ams.subscribeCompleted(characteristic, remote(result), now: clock.now)
                onProgress()
            }
        case let .write(_, characteristic, bytes):
            guard let h = amsHandles[characteristic.uuid] else {
                ams.writeCompleted(characteristic, .failed, now: clock.now)
                return nil
            }
            bearer.write(h.value, value: bytes) { [unowned(unsafe) self] result in
                ams.writeCompleted(characteristic, remote(result), now: clock.now)
                onProgress()
            }
        case let .read(_, characteristic):
            guard let h = amsHandles[characteristic.uuid] else {
                ams.readCompleted(characteristic, .failed, now: clock.now)
                return nil
            }
            bearer.read(h.value) { [unowned(unsafe) self] result in
                ams.readCompleted(characteristic, remote(result), now: clock.now)
                onProgress()
            }
        case .event(let event):
            return event
        }
        return nil
    }
}
