/// Control Point commands (ANCS CommandID).
public enum CommandID: UInt8, CustomStringConvertible {
    case getNotificationAttributes = 0
    case getAppAttributes = 1
    case performNotificationAction = 2

    public var description: String {
        switch self {
        case .getNotificationAttributes: return "GetNotificationAttributes"
        case .getAppAttributes: return "GetAppAttributes"
        case .performNotificationAction: return "PerformNotificationAction"
        }
    }
}

/// PerformNotificationAction's ActionID.
public enum ActionID: UInt8, CustomStringConvertible {
    case positive = 0
    case negative = 1

    public var description: String { self == .positive ? "positive" : "negative" }

    /// The event flag that says the notification offers this action.
    public var flag: EventFlags { self == .positive ? .positiveAction : .negativeAction }
}
