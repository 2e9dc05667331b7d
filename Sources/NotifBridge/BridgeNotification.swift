import BluetoothCore
import JSON

/// The `attributes` bitmask of a notification (an OptionSet: JSONEncoder
/// writes its raw value, a number).
public struct NotificationAttributes: OptionSet, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let critical = NotificationAttributes(rawValue: 1)
    public static let timeSensitive = NotificationAttributes(rawValue: 2)
    public static let priority = NotificationAttributes(rawValue: 4)
}

/// What kind of alert the phone made of it (`AlertKind`, a String enum:
/// JSONEncoder writes the case name).
public enum NotificationAlertKind: Equatable {
    case notification, incomingCall, alarm, timer
    /// A kind this head unit does not know: kept as sent.
    case other(String)

    init(_ text: String) {
        switch text {
        case "notification": self = .notification
        case "incomingCall": self = .incomingCall
        case "alarm": self = .alarm
        case "timer": self = .timer
        default: self = .other(text)
        }
    }
}

/// A notification as an Event v3 carries it, every member of the app's
/// `Notification` read as JSONEncoder writes it. Icons, attachments and the
/// rich body are not kept (the head unit draws none of them, and they are
/// the bulk of the bytes): their sizes are.
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
    public var attachments: [NotificationAttachment]
    /// Bytes of the two icons (PNG data the head unit does not draw).
    public var sourceIconBytes: Int
    public var contextIconBytes: Int
    public var transportSessionID: String?
    public var hasRichBody: Bool
    public var alertKind: NotificationAlertKind?
    /// Seconds since 2001-01-01T00:00:00Z (Date as JSONEncoder writes it by default).
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
        attachments = []
        sourceIconBytes = 0
        contextIconBytes = 0
        hasRichBody = false
    }

    /// The identity is required (nothing can be shown or removed without
    /// it). Every other member is read as the app writes it and, when
    /// absent or of a type this head unit does not expect, left at its
    /// default with a log line: the notification is shown with what could
    /// be read, never refused for a member it does not need.
    init(json: JSONValue) throws(JSONError) {
        self.init(identity: try NotificationIdentity(json: json))
        let r = LenientReader(json)
        title = r.string("title")
        subtitle = r.string("subtitle")
        body = r.string("body")
        sourceName = r.string("sourceName")
        threadIdentifier = r.string("threadIdentifier")
        summary = r.string("summary")
        hasSound = r.bool("hasSound")
        shouldAlert = r.bool("shouldAlert")
        isSuppressedByFocus = r.bool("isSuppressedByFocus")
        ignoreSilentMode = r.bool("ignoreSilentMode")
        isCleared = r.bool("isCleared")
        displayDateIsAllDay = r.bool("displayDateIsAllDay")
        attributes = NotificationAttributes(rawValue: r.int("attributes") ?? 0)
        actions = r.objects("actions").map { item in
            let a = LenientReader(item)
            return NotificationAction(id: a.string("id") ?? "", title: a.string("title") ?? "",
                                      type: item["type"].map(NotificationActionType.init(json:)) ?? .unrecognized("(absent)"))
        }
        attachments = r.objects("attachments").map { item in
            let a = LenientReader(item)
            return NotificationAttachment(id: a.string("id"), uti: a.string("uti"), byteCount: a.string("data").map(base64ByteCount) ?? 0,
                                          unavailableReason: a.string("unavailableReason"))
        }
        sourceIconBytes = r.string("sourceIcon").map(base64ByteCount) ?? 0
        contextIconBytes = r.string("contextIcon").map(base64ByteCount) ?? 0
        transportSessionID = r.string("transportSessionID")
        hasRichBody = r.string("richBody") != nil
        alertKind = r.string("alertKind").map(NotificationAlertKind.init)
        receivedAt = r.double("receivedAt")
        deliveryDate = r.double("deliveryDate")
        displayDate = r.double("displayDate")
    }
}

/// Reads members of a display field's object, turning a member of the
/// wrong type into its absence with one log line (the key and the types,
/// never the value).
struct LenientReader {
    let json: JSONValue

    init(_ json: JSONValue) { self.json = json }

    private func read<T>(_ body: () throws(JSONError) -> T?) -> T? {
        do throws(JSONError) {
            return try body()
        } catch {
            Log.info("notifbridge", "event member ignored: \(error)")
            return nil
        }
    }

    func string(_ key: String) -> String? { read { () throws(JSONError) in try json.optionalString(key) } }
    func bool(_ key: String) -> Bool { read { () throws(JSONError) in try json.optionalBool(key) } ?? false }
    func int(_ key: String) -> Int? { read { () throws(JSONError) in try json.optionalInt(key) } }
    func double(_ key: String) -> Double? { read { () throws(JSONError) in try json.optionalDouble(key) } }

    /// The object elements of an array member; other elements are skipped.
    func objects(_ key: String) -> [JSONValue] {
        let items = read { () throws(JSONError) in try json.optionalArray(key) } ?? []
        let objects = items.filter { $0.isObject }
        if objects.count != items.count { Log.info("notifbridge", "event member \(key): \(items.count - objects.count) element(s) not objects, skipped") }
        return objects
    }
}
