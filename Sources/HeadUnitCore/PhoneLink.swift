import BluetoothCore
import GATT
import HCI
import SMP

/// Everything about one connected phone, in one place: made when the link
/// comes up (`HeadUnitCore.linkUp`) and ended when it goes down
/// (`HeadUnitCore.linkDown`), so nothing about a link outlives it.
///
/// The head unit is the central today; `role` is carried for the links on
/// which it will be the peripheral (a phone connecting to it).
public final class PhoneLink {
    public let handle: ConnectionHandle
    public let role: LinkRole
    public let peer: BluetoothAddress
    /// ATT over this link: our client requests and the small GATT server.
    let bearer: GATTBearer
    /// The NavigationNotifier service (docs/PROTOCOL.md §1) on the phone.
    let navigationNotifier: NavigationNotifierClient
    /// The phone's SERVER NAME once the pairing routine accepted it.
    public internal(set) var server: String?
    /// Pairing and encryption, from the moment the phone was accepted.
    var security: SecurityManager?
    /// ANCS and AMS, from the moment the link is encrypted.
    var appleServices: AppleServices?
    /// Called when a GATT answer arrived, so the owner pumps again.
    var onProgress: () -> Void = {}
    private let clock: CoreClock

    init(link: Link, database: GATTDatabase, clock: CoreClock) {
        handle = link.handle
        role = link.role
        peer = link.peer
        bearer = GATTBearer(handle: link.handle, database: database)
        navigationNotifier = NavigationNotifierClient(bearer: bearer)
        self.clock = clock
    }

    public var mtu: Int { bearer.mtu }

    /// The link went down: every procedure on it ends.
    func close(now: Instant) {
        bearer.close()
        appleServices?.disconnected(now: now)
    }

    var nextDeadline: Instant? {
        earliest(earliest(bearer.nextDeadline, security?.nextDeadline), appleServices?.nextDeadline)
    }

    func handleTimeout(now: Instant) {
        bearer.handleTimeout(now: now)
        security?.handleTimeout(now: now)
        appleServices?.handleTimeout(now: now)
    }

    /// iOS may publish ANCS only after bonding and says so with a Service
    /// Changed indication: subscribe to it, and rediscover when it comes.
    func watchServiceChanged() {
        ServiceDiscovery.discover(BluetoothUUID(0x1801), on: bearer) { [unowned(unsafe) self] outcome in
            guard case .found(let found) = outcome, let changed = found[BluetoothUUID(0x2A05)], let cccd = changed.cccd else {
                Log.debug("gatt", "the phone offers no Service Changed indication")
                return
            }
            bearer.subscribe(valueHandle: changed.value, cccd: cccd, indications: true, onValue: { [unowned(unsafe) self] _ in
                Log.info("gatt", "the phone's services changed; looking again")
                appleServices?.serviceChanged(now: clock.now)
                onProgress()
            }) { result in
                if case .failure(let error) = result { Log.debug("gatt", "Service Changed not subscribed: \(error)") }
            }
        }
    }

    /// Reads the phone's Current Time Service once per connection; a phone
    /// without one leaves the head unit on its own clock.
    func readPhoneClock(_ done: @escaping (PhoneClock) -> Void) {
        ServiceDiscovery.discover(PhoneClock.service, on: bearer) { [unowned(unsafe) self] outcome in
            guard case .found(let found) = outcome, let time = found[PhoneClock.currentTime] else {
                Log.info("clock", "the phone has no Current Time Service")
                return
            }
            bearer.read(time.value) { [unowned(unsafe) self] result in
                guard case .success(let bytes) = result, let phoneClock = PhoneClock(currentTime: bytes, at: clock.now) else {
                    Log.warning("clock", "the phone's current time could not be read")
                    return
                }
                Log.info("clock", "time from the phone: \(phoneClock.text(at: clock.now))")
                done(phoneClock)
            }
        }
    }
}
