import AMS
import Notifications
import NavigationNotifier
import SMP
import ScreenValues

/// Something for the event log (the `--events` automation contract, see
/// the README). The shell writes them as JSON lines with their time.
public enum CoreEvent: Equatable {
    case state(PairingState)
    /// The passkey on screen, 6 digits.
    case passkey(String)
    case numericComparison(String)
    case paired(server: String?, method: PairingMethod, secureConnections: Bool, mitm: Bool)
    case encrypted(server: String?, bonded: Bool)
    case notification(NotificationEvent)
    case nowPlaying(NowPlayingReport)
    /// Something went wrong; the event log writes its `what` and `detail`.
    case error(CoreError)
    /// Where the head unit stands as an accessory (Settings pairing).
    case accessory(AccessoryReport)
    /// A GhostDrop transfer from the phone: the code, progress, the end.
    case ghostDrop(GhostDropReport)
}
