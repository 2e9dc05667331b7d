import ANCS
import Notifications
import SMP

/// The configuration values the core uses (the shell takes them from the
/// configuration file): the pairing policy, the ANCS limits, the Maps/Music
/// filter and the GAP name the head unit serves.
public struct CoreSettings {
    public var pairing: PairingConfiguration
    public var ancs: ANCSConfiguration
    public var filter: NotificationFilter
    /// nil: "NavigationNotifier CLIENTNAME".
    public var deviceName: String?

    public init(pairing: PairingConfiguration = PairingConfiguration(), ancs: ANCSConfiguration = ANCSConfiguration(),
                filter: NotificationFilter = NotificationFilter(), deviceName: String? = nil) {
        self.pairing = pairing
        self.ancs = ancs
        self.filter = filter
        self.deviceName = deviceName
    }
}
