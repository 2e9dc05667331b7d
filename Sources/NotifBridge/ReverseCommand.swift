import JSON

/// A command the head unit sends back (encrypted with the newest key's
/// AccessoryToHost direction).
public struct ReverseCommand: Equatable {
    public enum Kind: Equatable {
        /// The notification was shown; `didAlert` says whether it drew attention.
        case displayed(didAlert: Bool)
        case clear
        /// Runs one of the notification's actions.
        case respond(actionID: String)
    }

    public let id: CommandID
    public let kind: Kind
    public let identity: NotificationIdentity
    /// The event this is about.
    public let replyTo: EventID

    public init(id: CommandID, kind: Kind, identity: NotificationIdentity, replyTo: EventID) {
        self.id = id
        self.kind = kind
        self.identity = identity
        self.replyTo = replyTo
    }

    public var encoded: [UInt8] {
        var members = [JSONMember("version", .number(JSONNumber(BridgeEvent.version))),
                       JSONMember("id", .string(id.description))]
        switch kind {
        case .displayed(let didAlert):
            members.append(JSONMember("kind", .string("displayed")))
            members.append(JSONMember("didAlert", .bool(didAlert)))
        case .clear:
            members.append(JSONMember("kind", .string("clear")))
        case .respond(let actionID):
            members.append(JSONMember("kind", .string("respond")))
            members.append(JSONMember("actionID", .string(actionID)))
        }
        members.append(JSONMember("identity", identity.json))
        members.append(JSONMember("replyTo", .string(replyTo.text)))
        return JSONValue.object(members).encoded
    }
}
