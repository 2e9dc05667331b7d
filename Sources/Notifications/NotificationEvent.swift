import ANCS
import Guidance

/// The `action` field of the `notification` event.
public enum NotificationEventAction: Hashable, CustomStringConvertible {
    case shown
    case updated
    case removed
    case dropped

    public var description: String { word.description }

    /// The word itself, for the event log to copy as it is.
    public var word: StaticString {
        switch self {
        case .shown: return "shown"
        case .updated: return "updated"
        case .removed: return "removed"
        case .dropped: return "dropped"
        }
    }
}

/// The data of one `notification` event (docs/PROTOCOL.md §6): action, uid, app,
/// category, kind, title, message, and for navigation what the instruction
/// says (maneuver, roundabout exit, distance). Title and message are nil
/// when not fetched, and always nil for a dropped notification.
public struct NotificationEvent: Equatable {
    public var action: NotificationEventAction
    public var uid: NotificationUID
    /// The bundle identifier (`app`), nil if it could not be fetched.
    public var app: AppIdentifier?
    public var appName: String?
    /// `category`: write `category.name` (e.g. "Location").
    public var category: CategoryID
    public var kind: NotificationKind
    public var title: String?
    public var message: String?
    /// The instruction understood: for a navigation notification shown or
    /// updated with text.
    public var guidance: Guidance?
    /// Where it came from (the event log's `via`).
    public var source: NotificationSource

    public init(action: NotificationEventAction, uid: NotificationUID, app: AppIdentifier?, appName: String? = nil,
                category: CategoryID, kind: NotificationKind, title: String? = nil, message: String? = nil,
                source: NotificationSource = .ancs) {
        // Read for what is shown; a removal says nothing new.
        let reads = kind == .navigation && action != .removed && action != .dropped && (title != nil || message != nil)
        self.init(action: action, uid: uid, app: app, appName: appName, category: category, kind: kind, title: title,
                  message: message, guidance: reads ? Guidance(title: title ?? "", message: message ?? "") : nil, source: source)
    }

    /// With the guidance the model has already read.
    init(action: NotificationEventAction, uid: NotificationUID, app: AppIdentifier?, appName: String?,
         category: CategoryID, kind: NotificationKind, title: String?, message: String?, guidance: Guidance?,
         source: NotificationSource) {
        self.action = action
        self.uid = uid
        self.app = app
        self.appName = appName
        self.category = category
        self.kind = kind
        self.title = title
        self.message = message
        self.guidance = guidance
        self.source = source
    }
}
