import AMS
import ANCS
import ATT
import BluetoothCore
import GATT

/// Runs the ANCS and AMS clients of one encrypted link over its GATT
/// bearer: each action they emit becomes an operation on the bound service,
/// and its outcome goes back as exactly one result call. Values the phone
/// notifies are routed to the client that subscribed to them.
final class AppleServices {
    let handle: ConnectionHandle
    let ancs: ANCSClient
    let ams: AMSClient
    /// The link's ANCS and AMS services (its `PhoneLink` owns them and
    /// forgets them on Service Changed).
    private let ancsService: GATTServiceBinding
    private let amsService: GATTServiceBinding
    /// The core's time: GATT answers arrive inside its inputs, at their `now`.
    private let clock: CoreClock
    /// Called whenever a GATT answer arrived, so the owner pumps again.
    var onProgress: () -> Void = {}

    init(handle: ConnectionHandle, ancsService: GATTServiceBinding, amsService: GATTServiceBinding,
         ancs: ANCSClient, ams: AMSClient, clock: CoreClock) {
        self.handle = handle
        self.ancs = ancs
        self.ams = ams
        self.ancsService = ancsService
        self.amsService = amsService
        self.clock = clock
    }

    func start(now: Instant) {
        ancs.start(now: now)
        ams.start(now: now)
    }

    /// The phone's GATT database changed (iOS publishes ANCS after bonding);
    /// the link has already forgotten the services' handles.
    func serviceChanged(now: Instant) {
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

    /// Wraps a result handler: it gets the time the answer arrived, then
    /// the owner is told to pump.
    private func reporting<T>(_ body: @escaping (T, Instant) -> Void) -> (T) -> Void {
        { [unowned(unsafe) self] value in
            body(value, self.clock.now)
            self.onProgress()
        }
    }

    // MARK: - ANCS

    /// Performs a GATT action and returns the events to pass on.
    func perform(_ action: ANCSAction) -> ANCSEvent? {
        let ancs = self.ancs
        switch action {
        case .event(let event):
            // The common case: every notification passes here.
            return event
        case .discover:
            ancsService.discover(reporting { ancs.discoveryCompleted(ANCSDiscovery($0), now: $1) })
        case .subscribe(_, .notificationSource):
            ancsService.subscribe(ANCSUUIDs.notificationSource, onValue: reporting(ancs.notificationSourceReceived),
                                  reporting { ancs.subscribeCompleted(.notificationSource, $0, now: $1) })
        case .subscribe(_, let characteristic):
            ancsService.subscribe(characteristic.uuid, onValue: reporting(ancs.dataSourceReceived),
                                  reporting { ancs.subscribeCompleted(characteristic, $0, now: $1) })
        case let .unsubscribe(_, characteristic):
            ancsService.unsubscribe(characteristic.uuid, reporting { ancs.unsubscribeCompleted(characteristic, $0, now: $1) })
        case let .writeControlPoint(_, bytes):
            ancsService.write(ANCSUUIDs.controlPoint, value: bytes, reporting { ancs.controlPointWriteCompleted($0, now: $1) })
        }
        return nil
    }

    // MARK: - AMS

    func perform(_ action: AMSAction) -> AMSEvent? {
        let ams = self.ams
        switch action {
        case .discover:
            amsService.discover(reporting { ams.discoveryCompleted(AMSDiscovery($0), now: $1) })
        case let .subscribe(_, characteristic):
            let onValue = characteristic == .remoteCommand ? ams.remoteCommandReceived : ams.entityUpdateReceived
            amsService.subscribe(characteristic.uuid, onValue: reporting(onValue),
                                 reporting { ams.subscribeCompleted(characteristic, $0, now: $1) })
        case let .write(_, characteristic, bytes):
            amsService.write(characteristic.uuid, value: bytes, reporting { ams.writeCompleted(characteristic, $0, now: $1) })
        case let .read(_, characteristic):
            amsService.read(characteristic.uuid, reporting { ams.readCompleted(characteristic, $0, now: $1) })
        case .event(let event):
            return event
        }
        return nil
    }
}
