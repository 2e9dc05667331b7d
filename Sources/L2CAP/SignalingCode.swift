import BluetoothCore

/// The code of a command on the LE signaling channel (Core Vol 3 Part A 4).
public struct SignalingCode: Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let commandReject = SignalingCode(0x01)
    public static let disconnectionRequest = SignalingCode(0x06)
    public static let disconnectionResponse = SignalingCode(0x07)
    public static let connectionParameterUpdateRequest = SignalingCode(0x12)
    public static let connectionParameterUpdateResponse = SignalingCode(0x13)
    public static let leCreditBasedConnectionRequest = SignalingCode(0x14)
    public static let leCreditBasedConnectionResponse = SignalingCode(0x15)
    public static let flowControlCreditIndication = SignalingCode(0x16)
    public static let creditBasedConnectionRequest = SignalingCode(0x17)
    public static let creditBasedConnectionResponse = SignalingCode(0x18)
    public static let creditBasedReconfigureRequest = SignalingCode(0x19)
    public static let creditBasedReconfigureResponse = SignalingCode(0x1A)

    /// Answers to requests. Our requests are the Connection Parameter
    /// Update Request as peripheral and the Disconnection Request of a
    /// credit based channel; any other answer is unsolicited.
    public var isResponse: Bool {
        switch self {
        case .commandReject, .disconnectionResponse, .connectionParameterUpdateResponse,
             .leCreditBasedConnectionResponse, .creditBasedConnectionResponse, .creditBasedReconfigureResponse:
            return true
        default:
            return false
        }
    }

    public var description: String {
        switch self {
        case .commandReject: return "Command Reject"
        case .disconnectionRequest: return "Disconnection Request"
        case .disconnectionResponse: return "Disconnection Response"
        case .connectionParameterUpdateRequest: return "Connection Parameter Update Request"
        case .connectionParameterUpdateResponse: return "Connection Parameter Update Response"
        case .leCreditBasedConnectionRequest: return "LE Credit Based Connection Request"
        case .leCreditBasedConnectionResponse: return "LE Credit Based Connection Response"
        case .flowControlCreditIndication: return "Flow Control Credit Indication"
        case .creditBasedConnectionRequest: return "Credit Based Connection Request"
        case .creditBasedConnectionResponse: return "Credit Based Connection Response"
        case .creditBasedReconfigureRequest: return "Credit Based Reconfigure Request"
        case .creditBasedReconfigureResponse: return "Credit Based Reconfigure Response"
        default: return "signaling code 0x" + hex(rawValue, digits: 2)
        }
    }
}

/// Reasons carried by a Command Reject.
public enum CommandRejectReason: UInt16 {
    case commandNotUnderstood = 0x0000
    case signalingMTUExceeded = 0x0001
    case invalidCIDInRequest = 0x0002
}

/// Result codes of (LE) credit based connection responses.
public enum CreditBasedConnectionResult: UInt16 {
    case successful = 0x0000
    case spsmNotSupported = 0x0002
    case noResourcesAvailable = 0x0004
    case insufficientAuthentication = 0x0005
    case insufficientAuthorization = 0x0006
    case encryptionKeySizeTooShort = 0x0007
    case insufficientEncryption = 0x0008
    case invalidSourceCID = 0x0009
    case sourceCIDAlreadyAllocated = 0x000A
    case unacceptableParameters = 0x000B
}

/// Result of a Connection Parameter Update Response.
public enum ConnectionParameterUpdateResult: UInt16 {
    case accepted = 0x0000
    case rejected = 0x0001
}
