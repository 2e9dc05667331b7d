import BluetoothCore

/// One attribute asked for in GetNotificationAttributes; Title, Subtitle and
/// Message carry the maximum length the phone may send.
public struct NotificationAttributeRequest: Equatable {
    public var id: NotificationAttributeID
    public var maxLength: UInt16?

    public init(_ id: NotificationAttributeID, maxLength: UInt16? = nil) {
        self.id = id
        self.maxLength = maxLength
    }
}

/// A write to the Control Point.
public enum ControlPointCommand: Equatable, CustomStringConvertible {
    case getNotificationAttributes(NotificationUID, [NotificationAttributeRequest])
    case getAppAttributes(AppIdentifier, [AppAttributeID])
    case performNotificationAction(NotificationUID, ActionID)

    public var commandID: CommandID {
        switch self {
        case .getNotificationAttributes: return .getNotificationAttributes
        case .getAppAttributes: return .getAppAttributes
        case .performNotificationAction: return .performNotificationAction
        }
    }

    /// The value written to the Control Point.
    public var bytes: [UInt8] {
        var writer = ByteWriter(capacity: 24)
        writer.u8(commandID.rawValue)
        switch self {
        case .getNotificationAttributes(let uid, let attributes):
            writer.u32(uid.value)
            for attribute in attributes {
                writer.u8(attribute.id.rawValue)
                // The phone requires a length after Title/Subtitle/Message and
                // none after the others.
                if attribute.id.takesMaxLength { writer.u16(attribute.maxLength ?? UInt16.max) }
            }
        case .getAppAttributes(let app, let attributes):
            writer.append(app.value.utf8)
            writer.u8(0)
            for attribute in attributes { writer.u8(attribute.rawValue) }
        case .performNotificationAction(let uid, let action):
            writer.u32(uid.value)
            writer.u8(action.rawValue)
        }
        return writer.bytes
    }

    /// What the phone answers on the Data Source, or nil for
    /// PerformNotificationAction (no data comes back).
    ///
    /// `sanityLimit` bounds an attribute without a requested maximum; a capped
    /// attribute may take four bytes per requested unit, since the phone may
    /// count characters rather than bytes. A longer declared length is a
    /// malformed response, not a reason to buffer 64 KiB.
    public func expectedResponse(sanityLimit: Int) -> DataSourceExpectation? {
        switch self {
        case .getNotificationAttributes(let uid, let attributes):
            var header = ByteWriter(capacity: 5)
            header.u8(commandID.rawValue)
            header.u32(uid.value)
            return DataSourceExpectation(header: header.bytes, attributes: attributes.map { request in
                let limit = request.maxLength.map { Int($0) * 4 } ?? sanityLimit
                return DataSourceExpectation.Attribute(id: request.id.rawValue, maxLength: limit)
            })
        case .getAppAttributes(let app, let attributes):
            var header = ByteWriter(capacity: app.value.utf8.count + 2)
            header.u8(commandID.rawValue)
            header.append(app.value.utf8)
            header.u8(0)
            return DataSourceExpectation(header: header.bytes, attributes: attributes.map {
                DataSourceExpectation.Attribute(id: $0.rawValue, maxLength: sanityLimit)
            })
        case .performNotificationAction:
            return nil
        }
    }

    public var description: String {
        switch self {
        case .getNotificationAttributes(let uid, let attributes):
            var names = ""
            for (i, a) in attributes.enumerated() {
                if i > 0 { names += "," }
                names += a.id.description
            }
            return "GetNotificationAttributes uid \(uid) [\(names)]"
        case .getAppAttributes(let app, _):
            return "GetAppAttributes \(app)"
        case .performNotificationAction(let uid, let action):
            return "PerformNotificationAction uid \(uid) \(action)"
        }
    }
}
