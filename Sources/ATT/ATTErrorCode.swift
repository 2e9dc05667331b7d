import BluetoothCore

/// The error code of an ATT Error Response (Core Vol 3 Part F 3.4.1.1 and the
/// Core Specification Supplement for the common profile errors). A struct
/// rather than an enum so every byte a peer may send has a value; compare
/// with the named constants (`case .insufficientAuthentication:` works in a
/// switch).
public struct ATTErrorCode: Error, Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let invalidHandle = ATTErrorCode(0x01)
    public static let readNotPermitted = ATTErrorCode(0x02)
    public static let writeNotPermitted = ATTErrorCode(0x03)
    public static let invalidPDU = ATTErrorCode(0x04)
    public static let insufficientAuthentication = ATTErrorCode(0x05)
    public static let requestNotSupported = ATTErrorCode(0x06)
    public static let invalidOffset = ATTErrorCode(0x07)
    public static let insufficientAuthorization = ATTErrorCode(0x08)
    public static let prepareQueueFull = ATTErrorCode(0x09)
    public static let attributeNotFound = ATTErrorCode(0x0A)
    public static let attributeNotLong = ATTErrorCode(0x0B)
    public static let encryptionKeySizeTooShort = ATTErrorCode(0x0C)
    public static let invalidAttributeValueLength = ATTErrorCode(0x0D)
    public static let unlikelyError = ATTErrorCode(0x0E)
    public static let insufficientEncryption = ATTErrorCode(0x0F)
    public static let unsupportedGroupType = ATTErrorCode(0x10)
    public static let insufficientResources = ATTErrorCode(0x11)
    public static let databaseOutOfSync = ATTErrorCode(0x12)
    public static let valueNotAllowed = ATTErrorCode(0x13)
    // Common profile and service errors (Core Specification Supplement Part B).
    public static let writeRequestRejected = ATTErrorCode(0xFC)
    public static let cccdImproperlyConfigured = ATTErrorCode(0xFD)
    public static let procedureAlreadyInProgress = ATTErrorCode(0xFE)
    public static let outOfRange = ATTErrorCode(0xFF)

    /// An error defined by the service on the other side, 0x80-0x9F, such as
    /// NavigationNotifier's 0x80 "paired with another client". (ANCS answers
    /// with 0xA0-0xA3, outside this range; those keep their raw value too.)
    public static func application(_ code: UInt8) -> ATTErrorCode { ATTErrorCode(code) }

    public var isApplicationError: Bool { (0x80...0x9F).contains(rawValue) }
    public var isCommonProfileError: Bool { rawValue >= 0xE0 }

    /// Errors that pairing or encryption can cure: the caller should raise
    /// the link's security and try again.
    public var isSecurityError: Bool {
        self == .insufficientAuthentication || self == .insufficientEncryption
            || self == .encryptionKeySizeTooShort || self == .insufficientAuthorization
    }

    public var name: String {
        switch self {
        case .invalidHandle: return "Invalid Handle"
        case .readNotPermitted: return "Read Not Permitted"
        case .writeNotPermitted: return "Write Not Permitted"
        case .invalidPDU: return "Invalid PDU"
        case .insufficientAuthentication: return "Insufficient Authentication"
        case .requestNotSupported: return "Request Not Supported"
        case .invalidOffset: return "Invalid Offset"
        case .insufficientAuthorization: return "Insufficient Authorization"
        case .prepareQueueFull: return "Prepare Queue Full"
        case .attributeNotFound: return "Attribute Not Found"
        case .attributeNotLong: return "Attribute Not Long"
        case .encryptionKeySizeTooShort: return "Encryption Key Size Too Short"
        case .invalidAttributeValueLength: return "Invalid Attribute Value Length"
        case .unlikelyError: return "Unlikely Error"
        case .insufficientEncryption: return "Insufficient Encryption"
        case .unsupportedGroupType: return "Unsupported Group Type"
        case .insufficientResources: return "Insufficient Resources"
        case .databaseOutOfSync: return "Database Out Of Sync"
        case .valueNotAllowed: return "Value Not Allowed"
        case .writeRequestRejected: return "Write Request Rejected"
        case .cccdImproperlyConfigured: return "CCCD Improperly Configured"
        case .procedureAlreadyInProgress: return "Procedure Already In Progress"
        case .outOfRange: return "Out Of Range"
        default:
            if isApplicationError { return "Application Error 0x" + hex(rawValue, digits: 2) }
            return "ATT error 0x" + hex(rawValue, digits: 2)
        }
    }

    public var description: String { name + " (0x" + hex(rawValue, digits: 2) + ")" }
}
