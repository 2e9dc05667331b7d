import ANCS
import Notifications
import SMP
import ScreenValues

/// The configuration values the core uses (the shell takes them from the
/// configuration file): the pairing policy, the ANCS limits, the Maps/Music
/// filter, the GAP name the head unit serves and whether it receives
/// NotifBridge notifications.
public struct CoreSettings {
    public var pairing: PairingConfiguration
    public var ancs: ANCSConfiguration
    public var filter: NotificationFilter
    /// nil: "NavigationNotifier CLIENTNAME".
    public var deviceName: String?
    /// The screen's language, clock format and units.
    public var screenLocale: ScreenLocale
    /// The NotifBridge service in the GATT database (docs/NOTIFBRIDGE.md);
    /// the configuration's `notifbridge = no` turns it off.
    public var notifBridge: Bool
    /// The head unit looks for phones running the NavigationNotifier app (it is the central).
    public var findsNavigationNotifierPhones: Bool
    /// The head unit advertises as an accessory: phones pair from their
    /// Settings and connect to it (it is the peripheral). Needs
    /// `StoredState.identityAddress`.
    public var advertises: Bool
    /// How long pairing mode stays open once asked for.
    public var pairingWindowMilliseconds: Int64
    /// Pairing mode opens at start even with a bonded phone.
    public var pairAtStart: Bool

    public init(pairing: PairingConfiguration = PairingConfiguration(), ancs: ANCSConfiguration = ANCSConfiguration(),
                filter: NotificationFilter = NotificationFilter(), deviceName: String? = nil,
                screenLocale: ScreenLocale = ScreenLocale(), notifBridge: Bool = true,
                findsNavigationNotifierPhones: Bool = true, advertises: Bool = true,
                pairingWindowMilliseconds: Int64 = 120_000, pairAtStart: Bool = false) {
        self.pairing = pairing
        self.ancs = ancs
        self.filter = filter
        self.deviceName = deviceName
        self.screenLocale = screenLocale
        self.notifBridge = notifBridge
        self.findsNavigationNotifierPhones = findsNavigationNotifierPhones
        self.advertises = advertises
        self.pairingWindowMilliseconds = pairingWindowMilliseconds
        self.pairAtStart = pairAtStart
    }
}
