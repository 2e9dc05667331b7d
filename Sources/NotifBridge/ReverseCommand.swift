import JSON

/// A command the head unit sends back (encrypted with the newest key's
/// AccessoryToHost direction).
public struct ReverseCommand: Equatable {
    public enum Kind: Equatable {
        /// The notification was shown; `didAlert` says whether it drew attention.
        case displayed(didAlert: Bool)
        case clear
        /// Runs one of the notification's actions (`userText` for a text-input action).
        case respond(actionID: String, userText: String?)
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

    /// As the app's `NotifWire.Command` is declared: version, id, kind,
    /// identity, actionIdentifier?, userText?, replyTo?, didAlert?; absent
    /// optionals left out, as JSONEncoder leaves them out.
    public var encoded: [UInt8] {
        var members = [JSONMember("version", .number(JSONNumber(BridgeEvent.version))),
                       JSONMember("id", .string(id.description))]
        switch kind {
        case .displayed: members.append(JSONMember("kind", .string("displayed")))
        case .clear: members.append(JSONMember("kind", .string("clear")))
        case .respond: members.append(JSONMember("kind", .string("respond")))
        }
        members.append(JSONMember("identity", identity.json))
        if case .respond(let actionID, let userText) = kind {
            members.append(JSONMember("actionIdentifier", .string(actionID)))
            if let userText { members.append(JSONMember("userText", .string(userText))) }
        }
        members.append(JSONMember("replyTo", .string(replyTo.text)))
        if case .displayed(let didAlert) = kind { members.append(JSONMember("didAlert", .bool(didAlert))) }
        return JSONValue.object(members).encoded
    }
}
