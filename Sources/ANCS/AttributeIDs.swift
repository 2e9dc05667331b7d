/// ANCS NotificationAttributeID. Values 8-255 are reserved.
public struct NotificationAttributeID: Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let appIdentifier = NotificationAttributeID(0)
    /// Title, Subtitle and Message are followed by a u16 maximum length in a request.
    public static let title = NotificationAttributeID(1)
    public static let subtitle = NotificationAttributeID(2)
    public static let message = NotificationAttributeID(3)
    /// The full length of the message, as decimal text.
    public static let messageSize = NotificationAttributeID(4)
    /// `yyyyMMdd'T'HHmmSS`, local time of the phone.
    public static let date = NotificationAttributeID(5)
    public static let positiveActionLabel = NotificationAttributeID(6)
    public static let negativeActionLabel = NotificationAttributeID(7)

    /// True for the attributes whose request carries a maximum length.
    public var takesMaxLength: Bool { rawValue >= 1 && rawValue <= 3 }

    public var description: String {
        switch rawValue {
        case 0: return "AppIdentifier"
        case 1: return "Title"
        case 2: return "Subtitle"
        case 3: return "Message"
        case 4: return "MessageSize"
        case 5: return "Date"
        case 6: return "PositiveActionLabel"
        case 7: return "NegativeActionLabel"
        default: return "Reserved(\(rawValue))"
        }
    }
}

/// ANCS AppAttributeID. Values 1-255 are reserved.
public struct AppAttributeID: Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let displayName = AppAttributeID(0)

    public var description: String { rawValue == 0 ? "DisplayName" : "Reserved(\(rawValue))" }
}
