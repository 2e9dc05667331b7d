import JSON

/// The `attributes` bitmask of a notification.
public struct NotificationAttributes: OptionSet, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let critical = NotificationAttributes(rawValue: 1)
    public static let timeSensitive = NotificationAttributes(rawValue: 2)
    public static let priority = NotificationAttributes(rawValue: 4)
}

/// One action button the phone offers.
public struct NotificationAction: Equatable {
    public let id: String
    public let title: String
    public let type: String?
}

/// A notification as an Event v3 carries it. Icons and attachments are
/// not kept: the head unit draws neither, and they are the bulk of the bytes.
public struct BridgeNotification: Equatable {
    public var identity: NotificationIdentity
    public var title: String?
    public var subtitle: String?
    public var body: String?
    /// The app's display name.
    public var sourceName: String?
    public var threadIdentifier: String?
    public var summary: String?
    public var hasSound: Bool
    public var shouldAlert: Bool
    public var isSuppressedByFocus: Bool
    public var ignoreSilentMode: Bool
    public var isCleared: Bool
    public var displayDateIsAllDay: Bool
    public var attributes: NotificationAttributes
    public var actions: [NotificationAction]
    /// `notification`, `incomingCall`, `alarm` or `timer` (others kept as sent).
    public var alertKind: String?
    /// Seconds since 2001-01-01T00:00:00Z.
    public var receivedAt: Double?
    public var deliveryDate: Double?
    public var displayDate: Double?

    /// The app's bundle id: what the Maps/Music filter looks at.
    public var sourceIdentifier: String { identity.sourceIdentifier }

    public init(identity: NotificationIdentity, title: String? = nil, subtitle: String? = nil, body: String? = nil,
                sourceName: String? = nil) {
        self.identity = identity
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.sourceName = sourceName
        hasSound = false
        shouldAlert = false
        isSuppressedByFocus = false
        ignoreSilentMode = false
        isCleared = false
        displayDateIsAllDay = false
        attributes = []
        actions = []
    }

    /// Every field but the identity is optional: a phone that leaves one
    /// out gets the default; one of the wrong type refuses the event.
    init(json: JSONValue) throws(JSONError) {
        self.init(identity: try NotificationIdentity(json: json),
                  title: try json.optionalString("title"), subtitle: try json.optionalString("subtitle"),
                  body: try json.optionalString("body"), sourceName: try json.optionalString("sourceName"))
        threadIdentifier = try json.optionalString("threadIdentifier")
        summary = try json.optionalString("summary")
        hasSound = try json.optionalBool("hasSound") ?? false
        shouldAlert = try json.optionalBool("shouldAlert") ?? false
        isSuppressedByFocus = try json.optionalBool("isSuppressedByFocus") ?? false
        ignoreSilentMode = try json.optionalBool("ignoreSilentMode") ?? false
        isCleared = try json.optionalBool("isCleared") ?? false
        displayDateIsAllDay = try json.optionalBool("displayDateIsAllDay") ?? false
        attributes = NotificationAttributes(rawValue: try json.optionalInt("attributes") ?? 0)
        for item in try json.optionalArray("actions") ?? [] {
            guard item.isObject else { throw .wrongType(key: "actions", expected: .object, found: item.type) }
            actions.append(NotificationAction(id: try item.string("id"), title: try item.string("title"),
                                              type: try item.optionalString("type")))
        }
        alertKind = try json.optionalString("alertKind")
        receivedAt = try json.optionalDouble("receivedAt")
        deliveryDate = try json.optionalDouble("deliveryDate")
        displayDate = try json.optionalDouble("displayDate")
    }
}
