/// What the head unit makes of a notification (docs/PROTOCOL.md §4).
public enum NotificationKind: CaseIterable, Hashable, CustomStringConvertible {
    /// A turn instruction from a navigation app: shown large.
    case navigation
    /// From a music app.
    case music
    /// Everything else: dropped, its text never fetched.
    case other

    /// The `kind` field of the `notification` event.
    public var description: String { word.description }

    /// The word itself, for the event log to copy as it is.
    public var word: StaticString {
        switch self {
        case .navigation: return "navigation"
        case .music: return "music"
        case .other: return "other"
        }
    }
}
