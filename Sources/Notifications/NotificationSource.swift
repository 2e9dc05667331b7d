/// Where a shown notification came from. Each source has its own UIDs and
/// its own life: an ANCS session ending clears only what ANCS showed, and
/// only ANCS notifications make the ANCS client expect updates.
public enum NotificationSource: Hashable, CustomStringConvertible {
    /// Read through Apple's ANCS on an encrypted link.
    case ancs
    /// Forwarded by the NotifBridge app (docs/NOTIFBRIDGE.md).
    case notifBridge

    public var description: String {
        switch self {
        case .ancs: return "ancs"
        case .notifBridge: return "notifbridge"
        }
    }
}
