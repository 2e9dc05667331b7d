import BluetoothCore
import JSON

/// What tapping an action does, as the phone's `ActionType` enum says.
/// JSONEncoder writes an enum with associated values as an object with one
/// member named after the case, whose value holds the case's labelled
/// payload (`_0` for an unlabelled one): `{"background":{}}`,
/// `{"textInput":{"placeholder":"Reply"}}`, `{"dismiss":{}}`,
/// `{"unknown":{"_0":255}}` (docs/NOTIFBRIDGE.md, "Messages").
public enum NotificationActionType: Equatable, CustomStringConvertible {
    case background
    case textInput(placeholder: String)
    case dismiss
    /// The phone's own `unknown(UInt8)`: a kind iOS gave it that it did not know.
    case unknown(code: Int?)
    /// A case this head unit does not know (a later app), or a value it
    /// cannot read: the action is kept under this name, never the notification refused.
    case unrecognized(String)

    public var description: String {
        switch self {
        case .background: return "background"
        case .textInput: return "textInput"
        case .dismiss: return "dismiss"
        case .unknown(let code): return "unknown(\(code.map { String($0) } ?? "?"))"
        case .unrecognized(let name): return "unrecognized(\(name))"
        }
    }

    /// Reads the synthesized enum object; a bare case name (an older
    /// sender's form) is read too.
    init(json: JSONValue) {
        switch json {
        case .string(let name):
            self = NotificationActionType.named(name, payload: .object([]))
        case .object(let members) where members.count == 1:
            self = NotificationActionType.named(members[0].key, payload: members[0].value)
        default:
            self = .unrecognized("(\(json.type))")
        }
    }

    private static func named(_ name: String, payload: JSONValue) -> NotificationActionType {
        switch name {
        case "background": return .background
        case "dismiss": return .dismiss
        case "textInput": return .textInput(placeholder: (try? payload.optionalString("placeholder")) ?? "")
        case "unknown": return .unknown(code: try? payload.optionalInt("_0"))
        default: return .unrecognized(String(name.prefix(32)))
        }
    }
}

/// One action button the phone offers.
public struct NotificationAction: Equatable {
    public let id: String
    public let title: String
    public let type: NotificationActionType

    public init(id: String, title: String, type: NotificationActionType) {
        self.id = id
        self.title = title
        self.type = type
    }
}

/// What an attachment is, without its bytes: the head unit draws none, so
/// only the length of its base64 text is looked at.
public struct NotificationAttachment: Equatable {
    public let id: String?
    public let uti: String?
    /// The bytes the base64 text stands for.
    public let byteCount: Int
    public let unavailableReason: String?

    public init(id: String?, uti: String?, byteCount: Int, unavailableReason: String?) {
        self.id = id
        self.uti = uti
        self.byteCount = byteCount
        self.unavailableReason = unavailableReason
    }
}

/// How many bytes padded base64 text of `length` characters decodes to
/// (the phone's Data encoding); the text itself is not decoded.
func base64ByteCount(_ text: String) -> Int {
    let utf8 = text.utf8
    var padding = 0
    for c in utf8.reversed().prefix(2) where c == UInt8(ascii: "=") { padding += 1 }
    return max(0, utf8.count / 4 * 3 - padding)
}
