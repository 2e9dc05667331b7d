import JSON

/// A decrypted Event (version 3) from the phone.
public struct BridgeEvent: Equatable {
    public static let version = 3

    public enum Kind: Equatable {
        case add(BridgeNotification)
        case update(BridgeNotification)
        case remove(NotificationIdentity)
        case removeAll
        /// The phone's answer to a `clear` or `respond` command
        /// (`result`: `commandID`, `success`, `message`; nil when unreadable).
        case commandResult(BridgeCommandResult?)
    }

    public let id: EventID
    public let kind: Kind
    /// When the phone sent it, seconds since 2001-01-01: newer wins.
    public let sentAt: Double

    public init(id: EventID, kind: Kind, sentAt: Double) {
        self.id = id
        self.kind = kind
        self.sentAt = sentAt
    }

    /// Which notification the event is about (nil for removeAll and results).
    public var identity: NotificationIdentity? {
        switch kind {
        case .add(let n), .update(let n): return n.identity
        case .remove(let identity): return identity
        case .removeAll, .commandResult: return nil
        }
    }

    /// The app's JSONEncoder output: version, id (UUID text), kind (a
    /// String enum: its case name), notification?, identity?, result?,
    /// sentAt (Date: seconds since 2001 as a number); members it does not
    /// know are ignored.
    public static func parse(_ plaintext: [UInt8]) throws(JSONError) -> BridgeEvent {
        let json = try JSONParser.parse(plaintext, limits: .notifBridge)
        guard json.isObject else { throw .wrongType(key: "(event)", expected: .object, found: json.type) }
        let version = try json.int("version")
        guard version == BridgeEvent.version else { throw .invalidValue(key: "version", reason: "is \(version), not 3") }
        let id = try json.string("id")
        let sentAt = try json.double("sentAt")
        let kind: Kind
        switch try json.string("kind") {
        case "add": kind = .add(try BridgeNotification(json: try json.object("notification")))
        case "update": kind = .update(try BridgeNotification(json: try json.object("notification")))
        case "remove": kind = .remove(try NotificationIdentity(json: try json.object("identity")))
        case "removeAll": kind = .removeAll
        case "commandResult": kind = .commandResult(BridgeCommandResult(json: json["result"]))
        case let other: throw .invalidValue(key: "kind", reason: "is \"\(other)\", not a known event")
        }
        return BridgeEvent(id: EventID(id), kind: kind, sentAt: sentAt)
    }
}

/// The `result` of a `commandResult` event.
public struct BridgeCommandResult: Equatable {
    public let commandID: String?
    public let success: Bool
    public let message: String?

    public init(commandID: String?, success: Bool, message: String?) {
        self.commandID = commandID
        self.success = success
        self.message = message
    }

    init?(json: JSONValue?) {
        guard let json, json.isObject else { return nil }
        let r = LenientReader(json)
        self.init(commandID: r.string("commandID"), success: r.bool("success"), message: r.string("message"))
    }
}

extension JSONLimits {
    /// A notification frame and what it holds: as large as the largest
    /// frame the receiver keeps (docs/NOTIFBRIDGE.md, "Buffer caps"); 64
    /// actions and 16 attachments of five members each are far below the
    /// element count.
    public static let notifBridge = JSONLimits(maxSize: FrameAssembler.notificationCapacity, maxDepth: 32, maxElements: 4096)
}
