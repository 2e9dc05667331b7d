import BluetoothCore

/// What happened to a notification (ANCS EventID). Values 3-255 are
/// reserved; a Notification Source message carrying one is dropped.
public enum EventID: UInt8, CustomStringConvertible {
    case added = 0
    case modified = 1
    case removed = 2

    public var description: String {
        switch self {
        case .added: return "added"
        case .modified: return "modified"
        case .removed: return "removed"
        }
    }
}

/// ANCS EventFlags. Bits 5-7 are reserved and kept as received.
public struct EventFlags: OptionSet, Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let silent = EventFlags(rawValue: 1 << 0)
    public static let important = EventFlags(rawValue: 1 << 1)
    /// Sent for every notification that already existed when the session began.
    public static let preExisting = EventFlags(rawValue: 1 << 2)
    /// The notification has a positive action (PerformNotificationAction 0).
    public static let positiveAction = EventFlags(rawValue: 1 << 3)
    /// The notification has a negative action (PerformNotificationAction 1).
    public static let negativeAction = EventFlags(rawValue: 1 << 4)

    public var description: String {
        var parts: [String] = []
        if contains(.silent) { parts.append("silent") }
        if contains(.important) { parts.append("important") }
        if contains(.preExisting) { parts.append("preexisting") }
        if contains(.positiveAction) { parts.append("positive") }
        if contains(.negativeAction) { parts.append("negative") }
        if rawValue & 0xE0 != 0 { parts.append("reserved:0x" + hex(rawValue & 0xE0, digits: 2)) }
        var text = "["
        for (i, p) in parts.enumerated() {
            if i > 0 { text += "," }
            text += p
        }
        return text + "]"
    }
}
