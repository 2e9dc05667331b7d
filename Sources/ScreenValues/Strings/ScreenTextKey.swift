/// Every sentence and word the head unit itself puts on the screen. The
/// English wording is the original design's (docs/PROTOCOL.md §1) and
/// stays exactly as it is; the other languages translate it, one file each.
/// `%s` stands for a phone's name.
public enum ScreenTextKey: CaseIterable, Hashable {
    case discover, discovering, connecting, connectingTo, connectedTo, connectTo
    case disconnect, unpair, server
    case noRoute, startRoute, nothingPlaying, unknownTitle
    case enterPasskey, pairingWith
    /// Over the code of a GhostDrop transfer (the driver compares it), and
    /// the two buttons under it.
    case compareCode, codesMatch, cancel
    /// A GhostDrop transfer's band: the time left (%s: "1:05"), and the
    /// outcome shown for a few seconds after (%s: the reason).
    case transferLeft, transferReceived, transferInstalling, transferInstalled, transferRefused, transferCancelled
    /// The hints of the status strip (`HeadUnitCore.hint`); for pairing
    /// and bonds the English is also the `error` event's detail.
    case hintAllowNotifications, hintSharingOff, hintPairAgain, hintPhoneForgot
    case pairPhone, hintSettingsPairing
    /// The maneuver's name, shown when an instruction has no distance.
    case turnLeft, turnRight, keepLeft, keepRight, sharpLeft, sharpRight, uTurn, roundabout, straightOn, merge
    case exitLeft, exitRight, arrive
    /// Before or after a 12-hour clock's time.
    case am, pm

    public var english: String {
        switch self {
        case .discover: return "Discover Server App"
        case .discovering: return "Discovering..."
        case .connecting: return "Connecting..."
        case .connectingTo: return "Connecting to %s..."
        case .connectedTo: return "Connected to server: %s"
        case .connectTo: return "Connect to %s"
        case .disconnect: return "Disconnect"
        case .unpair: return "Unpair"
        case .server: return "server"
        case .noRoute: return "No route"
        case .startRoute: return "Start a route in Maps on the iPhone"
        case .nothingPlaying: return "Nothing playing"
        case .unknownTitle: return "Unknown title"
        case .enterPasskey: return "Enter this passkey on the iPhone"
        case .pairingWith: return "Pairing with %s"
        case .compareCode: return "Check that the iPhone shows this code"
        case .codesMatch: return "Codes match"
        case .cancel: return "Cancel"
        case .transferLeft: return "%s left"
        case .transferReceived: return "Received"
        case .transferInstalling: return "Installing the update"
        case .transferInstalled: return "Installed, restarting"
        case .transferRefused: return "Refused: %s"
        case .transferCancelled: return "Cancelled: %s"
        case .hintAllowNotifications: return "Allow notifications for this head unit on the iPhone"
        case .hintSharingOff: return "Share System Notifications is off on the iPhone"
        case .hintPairAgain: return "Remove the pairing on the iPhone and on the head unit, then pair again"
        case .hintPhoneForgot: return "Phone forgot this head unit: pair again"
        case .pairPhone: return "Pair a new iPhone"
        case .hintSettingsPairing: return "On your iPhone: Settings → Bluetooth → tap %s"
        case .turnLeft: return "Turn left"
        case .turnRight: return "Turn right"
        case .keepLeft: return "Keep left"
        case .keepRight: return "Keep right"
        case .sharpLeft: return "Sharp left"
        case .sharpRight: return "Sharp right"
        case .uTurn: return "U-turn"
        case .roundabout: return "Roundabout"
        case .straightOn: return "Straight on"
        case .merge: return "Merge"
        case .exitLeft: return "Exit left"
        case .exitRight: return "Exit right"
        case .arrive: return "Arrive"
        case .am: return "AM"
        case .pm: return "PM"
        }
    }
}
