import AMS
import ANCS
import ATT
import BluetoothCore
import GATT
import Notifications

/// Runs the ANCS and AMS clients of one encrypted link over its GATT
/// bearer: each action they emit becomes an operation on the bound service,
/// whose request id is kept with what it was for, so its outcome goes back
/// as exactly one result call. Values the phone notifies are routed to the
/// client that subscribed to them.
///
/// ANCS and the notification model talk here, on the link, in values: what
/// ANCS learns goes to the model; ANCS asks which notifications are worth
/// their text (`.askWantsText`) and the model's answer goes back
/// (`textWanted`), as does whether one should be updating.
final class AppleServices {
    let handle: ConnectionHandle
    let ancs: ANCSClient
    let ams: AMSClient
    /// The link's ANCS and AMS services (its `PhoneLink` owns them and
    /// forgets them on Service Changed).
    private let ancsService: GATTServiceBinding
    private let amsService: GATTServiceBinding
    private let notifications: NotificationModel

    /// What each GATT request asked for, by its id.
    private enum Request {
        case ancsDiscovery
        case ancsSubscription(ANCSCharacteristic)
        case ancsUnsubscription(ANCSCharacteristic)
        case ancsControlPoint
        case amsDiscovery
        case amsSubscription(AMSCharacteristic)
        case amsWrite(AMSCharacteristic)
        case amsRead(AMSCharacteristic)
    }
    /// A few at a time (one Control Point write, a discovery or a
    /// subscription): a list looked through, not a hash table hashed twice
    /// per request.
    private var pending: [(id: GATTRequestID, request: Request)] = []

    init(handle: ConnectionHandle, ancsService: GATTServiceBinding, amsService: GATTServiceBinding,
         configuration: ANCSConfiguration, appNames: AppNameCache, notifications: NotificationModel) {
        self.handle = handle
        ancs = ANCSClient(connection: handle, configuration: configuration, appNames: appNames)
        ams = AMSClient(connection: handle)
        self.ancsService = ancsService
        self.amsService = amsService
        self.notifications = notifications
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

    // MARK: - The bearer's answers

    /// A GATT request ended; false when it was not one of ours.
    func completed(_ id: GATTRequestID, _ result: GATTClientResult, now: Instant) -> Bool {
        guard let i = pending.firstIndex(where: { $0.id == id }) else { return false }
        switch pending.remove(at: i).request {
        case .ancsDiscovery: ancs.discoveryCompleted(ANCSDiscovery(result), now: now)
        case .ancsSubscription(let c): ancs.subscribeCompleted(c, RemoteOperationResult(result), now: now)
        case .ancsUnsubscription(let c): ancs.unsubscribeCompleted(c, RemoteOperationResult(result), now: now)
        case .ancsControlPoint: ancs.controlPointWriteCompleted(RemoteOperationResult(result), now: now)
        case .amsDiscovery: ams.discoveryCompleted(AMSDiscovery(result), now: now)
        case .amsSubscription(let c): ams.subscribeCompleted(c, RemoteOperationResult(result), now: now)
        case .amsWrite(let c): ams.writeCompleted(c, RemoteOperationResult(result), now: now)
        case .amsRead(let c): ams.readCompleted(c, RemoteOperationResult(result), now: now)
        }
        return true
    }

    /// A value the phone notified; false when neither client subscribed to it.
    func valueReceived(at valueHandle: AttributeHandle, _ value: [UInt8], now: Instant) -> Bool {
        // The common case: every notification passes here.
        if let uuid = ancsService.characteristic(notifiedAt: valueHandle) {
            if uuid == ANCSUUIDs.notificationSource {
                ancs.notificationSourceReceived(value, now: now)
            } else {
                ancs.dataSourceReceived(value, now: now)
            }
            return true
        }
        if let uuid = amsService.characteristic(notifiedAt: valueHandle) {
            if uuid == AMSCharacteristic.remoteCommand.uuid {
                ams.remoteCommandReceived(value, now: now)
            } else {
                ams.entityUpdateReceived(value, now: now)
            }
            return true
        }
        return false
    }

    // MARK: - ANCS

    /// An event of the ANCS client, to the notification model (which says
    /// whether it now expects updates). The common case: every
    /// notification passes here; the core then passes the event on.
    func pass(_ event: ANCSEvent, now: Instant) {
        notifications.handle(event)
        ancs.setNotificationsExpected(notifications.expectsUpdates, now: now)
    }

    /// Performs a GATT action or answers the client's question; events go
    /// through `pass`.
    func perform(_ action: ANCSAction, now: Instant) {
        switch action {
        case .event(let event):
            pass(event, now: now)
        case .askWantsText(let notification):
            ancs.textWanted(notifications.wantsText(notification), for: notification.uid, now: now)
        case .discover:
            pending.append((ancsService.discover(), .ancsDiscovery))
        case let .subscribe(_, characteristic):
            pending.append((ancsService.subscribe(characteristic.uuid), .ancsSubscription(characteristic)))
        case let .unsubscribe(_, characteristic):
            pending.append((ancsService.unsubscribe(characteristic.uuid), .ancsUnsubscription(characteristic)))
        case let .writeControlPoint(_, bytes):
            pending.append((ancsService.write(ANCSUUIDs.controlPoint, value: bytes), .ancsControlPoint))
        }
    }

    // MARK: - AMS

    /// Performs a GATT action; events are the core's (it handles them
    /// before they get here).
    func perform(_ action: AMSAction) {
        switch action {
        case .discover:
            pending.append((amsService.discover(), .amsDiscovery))
        case let .subscribe(_, characteristic):
            pending.append((amsService.subscribe(characteristic.uuid), .amsSubscription(characteristic)))
        case let .write(_, characteristic, bytes):
            pending.append((amsService.write(characteristic.uuid, value: bytes), .amsWrite(characteristic)))
        case let .read(_, characteristic):
            pending.append((amsService.read(characteristic.uuid), .amsRead(characteristic)))
        case .event:
            break
        }
    }
}
