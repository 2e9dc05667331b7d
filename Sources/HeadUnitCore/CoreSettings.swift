import ANCS
import Notifications
import SMP
import Screens

/// The configuration values the core uses (the shell takes them from the
/// configuration file): the pairing policy, the ANCS limits, the Maps/Music
/// filter and the GAP name the head unit serves.
public struct CoreSettings {
    public var pairing: PairingConfiguration
    public var ancs: ANCSConfiguration
    public var filter: NotificationFilter
    /// nil: "NavigationNotifier CLIENTNAME".
    public var deviceName: String?
    /// The screen's language, clock format and units.
    public var screenLocale: ScreenLocale

    public init(pairing: PairingConfiguration = PairingConfiguration(), ancs: ANCSConfiguration = ANCSConfiguration(),
                filter: NotificationFilter = NotificationFilter(), deviceName: String? = nil,
                screenLocale: ScreenLocale = ScreenLocale()) {
        self.pairing = pairing
        self.ancs = ancs
        self.filter = filter
        self.deviceName = deviceName
        self.screenLocale = screenLocale
    }
}
