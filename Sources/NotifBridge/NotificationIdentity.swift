import JSON

/// Which notification an event is about: the app's bundle id and the
/// notification's own id in that app.
public struct NotificationIdentity: Hashable, CustomStringConvertible {
    public let sourceIdentifier: String
    public let notificationIdentifier: String

    public init(sourceIdentifier: String, notificationIdentifier: String) {
        self.sourceIdentifier = sourceIdentifier
        self.notificationIdentifier = notificationIdentifier
    }

    /// The app only: notification ids are the app's text and may say more than they should in a log.
    public var description: String { sourceIdentifier + "/…" }

    init(json: JSONValue) throws(JSONError) {
        self.init(sourceIdentifier: try json.string("sourceIdentifier"),
                  notificationIdentifier: try json.string("notificationIdentifier"))
    }

    var json: JSONValue {
        .object([JSONMember("sourceIdentifier", .string(sourceIdentifier)),
                 JSONMember("notificationIdentifier", .string(notificationIdentifier))])
    }
}
