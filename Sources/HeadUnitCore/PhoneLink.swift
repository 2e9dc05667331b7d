import AMS
import ANCS
import ATT
import BluetoothCore
import GATT
import GhostDrop
import HCI
import NavigationNotifier
import NotifBridge
import SMP

/// Everything about one connected phone, in one place: made when the link
/// comes up (`HeadUnitCore.linkUp`) and ended when it goes down
/// (`HeadUnitCore.linkDown`), so nothing about a link outlives it.
///
/// `role` is central on links the head unit made (the NavigationNotifier
/// routine) and peripheral on links a phone made to it (Settings pairing,
/// NotifBridge); from security on, both are run alike.
public final class PhoneLink {
    public let handle: ConnectionHandle
    public let role: LinkRole
    public let peer: BluetoothAddress
    /// ATT over this link: our client requests and the small GATT server.
    let bearer: GATTBearer
    /// The NavigationNotifier service (docs/PROTOCOL.md §1) on the phone.
    let navigationNotifier: NavigationNotifierClient
    /// The phone's services this link uses, each found once and forgotten
    /// on Service Changed: ANCS and AMS (run by `appleServices`), Generic
    /// Attribute (for Service Changed itself), Current Time and Generic
    /// Access (the phone's name).
    let ancsService: GATTServiceBinding
    let amsService: GATTServiceBinding
    private let genericAttribute: GATTServiceBinding
    private let currentTime: GATTServiceBinding
    private let genericAccess: GATTServiceBinding
    private let services: [GATTServiceBinding]
    /// The phone's SERVER NAME once the pairing routine accepted it.
    public internal(set) var server: String?
    /// Peripheral links: the name the driver gave the iPhone ("Anna's
    /// iPhone"), read from its Generic Access service once secure.
    public internal(set) var deviceName: String?
    /// Pairing and encryption, from the moment the phone was accepted.
    var security: SecurityManager?
    /// Peripheral links: when a phone that has neither paired nor encrypted
    /// by itself gets a Security Request.
    var securityRequestDue: Instant?
    static let securityRequestDelayMilliseconds: Int64 = 1_000
    /// Peripheral links: by then the phone must have paired or encrypted
    /// (or be doing so), unless pairing mode is open; else it is sent away,
    /// so a device that only connects cannot hold a connection for long
    /// (controllers have few). Meanwhile advertising goes on beside it, and
    /// once the owner's phone is in, the stranger goes at once.
    var secureBy: Instant?
    /// iOS encrypts within a second of reconnecting and sends its Pairing
    /// Request within a second of the tap (or of our Security Request,
    /// `securityRequestDelayMilliseconds`): five seconds leave room for a
    /// slow link and keep a hog's hold short.
    public static let strangerGraceMilliseconds: Int64 = 5_000
    /// After a failed pairing outside pairing mode: long enough for Pairing
    /// Failed to leave, too short to start another attempt.
    static let failedAttemptLingerMilliseconds: Int64 = 500
    /// This link's pairing put a passkey (or a number to compare) on the
    /// screen, and it has not ended yet: one pairing at a time.
    var passkeyOnScreen = false
    /// The passkey (or number to compare) this link's pairing shows, until
    /// the driver confirms or the pairing ends; it goes with the link.
    var passkeyShown: String?
    /// This link's Numeric Comparison waits for the confirm key.
    var comparisonPending = false
    /// The bond whose GATT client state this link keeps (its CCCDs of our
    /// server), from the moment it is encrypted with that bond.
    var clientStateBond: String?
    /// This link is the head unit's phone: the first one bonded and
    /// encrypted while no other was (`HeadUnitCore.takeAsThePhone`). Only
    /// the phone runs ANCS and AMS and feeds the notification model.
    var isThePhone = false
    /// ANCS and AMS, from the moment the link is the phone.
    var appleServices: AppleServices?
    /// NotifBridge on a link the phone made to us (HeadUnitCore+NotifBridge).
    var notifBridge: NotifBridgeLink<HPKECryptography>?
    /// The bearer took ATT PDUs (or had its CCCDs restored) since the
    /// core last looked for the phone's writes and NotifBridge's
    /// subscription: only those change them.
    var attReceived = false
    /// GhostDrop frames a sender writes over GATT on this link, joined,
    /// and ours to it, cut (GhostDropGATT.swift).
    var ghostDropFragments = GhostGATTFragments()
    /// The link's own GATT requests, by id: the phone's clock and name.
    private var clockRead: GATTRequestID?
    private var nameRead: GATTRequestID?
    private var serviceChangedSubscription: GATTRequestID?

    init(link: Link, database: GATTDatabase) {
        handle = link.handle
        role = link.role
        peer = link.peer
        bearer = GATTBearer(handle: link.handle, database: database)
        let nn = GATTServiceBinding(service: NavigationNotifierUUIDs.service, bearer: bearer)
        navigationNotifier = NavigationNotifierClient(service: nn)
        ancsService = GATTServiceBinding(service: ANCSUUIDs.service, bearer: bearer)
        amsService = GATTServiceBinding(service: AMSUUIDs.service, bearer: bearer)
        genericAttribute = GATTServiceBinding(service: GATTUUID.genericAttributeService, bearer: bearer)
        currentTime = GATTServiceBinding(service: PhoneClock.service, bearer: bearer)
        genericAccess = GATTServiceBinding(service: GATTUUID.genericAccessService, bearer: bearer)
        services = [nn, ancsService, amsService, genericAttribute, currentTime, genericAccess]
    }

    public var mtu: Int { bearer.mtu }

    /// The link went down: ANCS and AMS end (the bearer was closed and its
    /// failed requests routed before).
    func close(now: Instant) {
        bearer.close()
        appleServices?.disconnected(now: now)
    }

    // MARK: - Routing the bearer's events

    /// Routes one of the bearer's events to whoever asked: each service
    /// binding's discovery walk, ANCS and AMS, the phone's clock and name,
    /// Service Changed. Returns what is the core's: the pairing routine's
    /// replies, the phone's clock, a dead bearer, a bonded client's new state.
    func route(_ event: GATTBearerEvent, now: Instant) -> PhoneLinkEvent? {
        switch event {
        case let .completed(id, result):
            for service in services where service.handle(id, result) { return nil }
            if let appleServices, appleServices.completed(id, result, now: now) { return nil }
            if let reply = navigationNotifier.completed(id, result) { return .navigationNotifier(reply) }
            return ownRequestCompleted(id, result, now: now)
        case let .valueReceived(valueHandle, value, _):
            if let appleServices, appleServices.valueReceived(at: valueHandle, value, now: now) { return nil }
            if let reply = navigationNotifier.valueReceived(at: valueHandle, value) { return .navigationNotifier(reply) }
            if genericAttribute.characteristic(notifiedAt: valueHandle) == GATTUUID.serviceChanged {
                Log.info("gatt", "the phone's services changed; looking again")
                serviceChanged(now: now)
            } else {
                Log.debug("gatt", "value for \(valueHandle) on \(handle) has no subscriber")
            }
            return nil
        case .transactionTimeout:
            return .transactionTimeout
        case .mtuChanged(let mtu):
            Log.debug("gatt", "ATT_MTU on \(handle) is \(mtu)")
            return nil
        case .clientStateChanged:
            return .clientStateChanged
        }
    }

    private func ownRequestCompleted(_ id: GATTRequestID, _ result: GATTClientResult, now: Instant) -> PhoneLinkEvent? {
        if id == clockRead {
            clockRead = nil
            return phoneClockRead(RemoteOperationResult(result), now: now).map { .phoneClock($0) }
        }
        if id == nameRead {
            nameRead = nil
            deviceNameRead(RemoteOperationResult(result))
        } else if id == serviceChangedSubscription {
            serviceChangedSubscription = nil
            if result.error != nil { Log.debug("gatt", "the phone offers no Service Changed indication") }
        }
        return nil
    }

    var nextDeadline: Instant? {
        earliest(earliest(earliest(bearer.nextDeadline, security?.nextDeadline), appleServices?.nextDeadline), securityRequestDue)
    }

    func handleTimeout(now: Instant) {
        bearer.handleTimeout(now: now)
        security?.handleTimeout(now: now)
        if let due = securityRequestDue, due <= now {
            securityRequestDue = nil
            security?.secure(now: now)
        }
        appleServices?.handleTimeout(now: now)
    }

    /// iOS may publish ANCS only after bonding and says so with a Service
    /// Changed indication: subscribe to it, and rediscover when it comes.
    func watchServiceChanged() {
        serviceChangedSubscription = genericAttribute.subscribe(GATTUUID.serviceChanged)
    }

    /// Every service found on the phone may have moved: each binding looks
    /// again at its next use, and ANCS and AMS start over.
    private func serviceChanged(now: Instant) {
        for service in services { service.forget() }
        appleServices?.serviceChanged(now: now)
    }

    /// Reads the phone's Current Time Service once per connection; a phone
    /// without one leaves the head unit on its own clock.
    func readPhoneClock() {
        clockRead = currentTime.read(PhoneClock.currentTime)
    }

    private func phoneClockRead(_ result: RemoteOperationResult, now: Instant) -> PhoneClock? {
        guard case .value(let bytes) = result, let phoneClock = PhoneClock(currentTime: bytes, at: now) else {
            if result == .attError(ATTErrorCode.attributeNotFound.rawValue) {
                Log.info("clock", "the phone has no Current Time Service")
            } else {
                Log.warning("clock", "the phone's current time could not be read")
            }
            return nil
        }
        Log.info("clock", "time from the phone: \(phoneClock.text(at: now))")
        return phoneClock
    }

    /// Reads the phone's Device Name once per connection, for the status
    /// line; a phone that gives none (or nothing printable) stays "iPhone".
    func readDeviceName() {
        nameRead = genericAccess.read(GATTUUID.deviceName)
    }

    private func deviceNameRead(_ result: RemoteOperationResult) {
        guard case .value(let bytes) = result, let name = PhoneLink.displayableName(bytes) else {
            Log.info("gap", "the phone gave no name to show")
            return
        }
        deviceName = name
    }

    /// The phone's Device Name as the screen may show it: no ASCII control
    /// characters, at most 64 characters, bad UTF-8 as U+FFFD, nil when
    /// nothing is left. It comes from the phone: never trusted whole.
    static func displayableName(_ bytes: [UInt8]) -> String? {
        var kept: [UInt8] = []
        var characters = 0
        for b in bytes.prefix(248) where b >= 0x20 && b != 0x7F {
            if b & 0xC0 != 0x80 {  // the first byte of a character
                if characters == 64 { break }
                characters += 1
            }
            kept.append(b)
        }
        while kept.last == 0x20 { kept.removeLast() }
        guard let start = kept.firstIndex(where: { $0 != 0x20 }) else { return nil }
        return String(decoding: kept[start...], as: UTF8.self)
    }
}

/// What a link's GATT traffic brings the core (`PhoneLink.route`).
enum PhoneLinkEvent {
    /// An answer for the pairing routine.
    case navigationNotifier(NavigationNotifierReply)
    /// The phone's time of day, read once per connection.
    case phoneClock(PhoneClock)
    /// The bearer is dead (an ATT transaction timed out): the link must go.
    case transactionTimeout
    /// A bonded client changed its state of our server: store it again.
    case clientStateChanged
}
