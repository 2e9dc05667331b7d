import JSON

/// A decrypted Event (version 3) from the phone.
public struct BridgeEvent: Equatable {
    public static let version = 3

    public enum Kind: Equatable {
        case add(BridgeNotification)
        case update(BridgeNotification)
        case remove(NotificationIdentity)
        case removeAll
        /// The phone's answer to a `clear` or `respond` command.
        case commandResult
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

    public static func parse(_ plaintext: [UInt8]) throws(JSONError) -> BridgeEvent {
        let json = try JSONParser.parse(plaintext)
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
        case "commandResult": kind = .commandResult
        case let other: throw .invalidValue(key: "kind", reason: "is \"\(other)\", not a known event")
        }
        return BridgeEvent(id: EventID(id), kind: kind, sentAt: sentAt)
    }
}
