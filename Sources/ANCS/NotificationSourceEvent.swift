import BluetoothCore

/// One Notification Source GATT notification: exactly 8 bytes, EventID,
/// EventFlags, CategoryID, CategoryCount, NotificationUID (u32 LE).
public struct NotificationSourceEvent: Equatable, CustomStringConvertible {
    public var eventID: EventID
    public var flags: EventFlags
    public var category: CategoryID
    /// How many notifications of this category the phone holds now.
    public var categoryCount: UInt8
    public var uid: NotificationUID

    public init(eventID: EventID, flags: EventFlags, category: CategoryID, categoryCount: UInt8, uid: NotificationUID) {
        self.eventID = eventID
        self.flags = flags
        self.category = category
        self.categoryCount = categoryCount
        self.uid = uid
    }

    public enum ParseError: Error, Equatable {
        /// Not 8 bytes.
        case length(Int)
        /// An EventID from the reserved range.
        case reservedEventID(UInt8)
    }

    public init(parsing bytes: [UInt8]) throws(ParseError) {
        guard bytes.count == 8 else { throw .length(bytes.count) }
        var reader = ByteReader(bytes)
        guard let event = reader.u8(), let flags = reader.u8(), let category = reader.u8(),
              let count = reader.u8(), let uid = reader.u32() else { throw .length(bytes.count) }
        guard let eventID = EventID(rawValue: event) else { throw .reservedEventID(event) }
        self.init(eventID: eventID, flags: EventFlags(rawValue: flags), category: CategoryID(category),
                  categoryCount: count, uid: NotificationUID(uid))
    }

    public var bytes: [UInt8] {
        var writer = ByteWriter(capacity: 8)
        writer.u8(eventID.rawValue)
        writer.u8(flags.rawValue)
        writer.u8(category.rawValue)
        writer.u8(categoryCount)
        writer.u32(uid.value)
        return writer.bytes
    }

    public var description: String {
        "\(eventID) uid \(uid) \(category) count \(categoryCount) flags \(flags)"
    }
}
