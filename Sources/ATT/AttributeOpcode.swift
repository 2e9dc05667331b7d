import BluetoothCore

/// The first byte of every ATT PDU. Bit 6 marks a command (never answered),
/// bit 7 an authentication signature at the end of the PDU. Kept as a struct
/// so unknown opcodes can be represented and answered.
public struct AttributeOpcode: Hashable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(_ rawValue: UInt8) { self.rawValue = rawValue }

    public static let errorResponse = AttributeOpcode(0x01)
    public static let exchangeMTURequest = AttributeOpcode(0x02)
    public static let exchangeMTUResponse = AttributeOpcode(0x03)
    public static let findInformationRequest = AttributeOpcode(0x04)
    public static let findInformationResponse = AttributeOpcode(0x05)
    public static let findByTypeValueRequest = AttributeOpcode(0x06)
    public static let findByTypeValueResponse = AttributeOpcode(0x07)
    public static let readByTypeRequest = AttributeOpcode(0x08)
    public static let readByTypeResponse = AttributeOpcode(0x09)
    public static let readRequest = AttributeOpcode(0x0A)
    public static let readResponse = AttributeOpcode(0x0B)
    public static let readBlobRequest = AttributeOpcode(0x0C)
    public static let readBlobResponse = AttributeOpcode(0x0D)
    public static let readMultipleRequest = AttributeOpcode(0x0E)
    public static let readMultipleResponse = AttributeOpcode(0x0F)
    public static let readByGroupTypeRequest = AttributeOpcode(0x10)
    public static let readByGroupTypeResponse = AttributeOpcode(0x11)
    public static let writeRequest = AttributeOpcode(0x12)
    public static let writeResponse = AttributeOpcode(0x13)
    public static let prepareWriteRequest = AttributeOpcode(0x16)
    public static let prepareWriteResponse = AttributeOpcode(0x17)
    public static let executeWriteRequest = AttributeOpcode(0x18)
    public static let executeWriteResponse = AttributeOpcode(0x19)
    public static let handleValueNotification = AttributeOpcode(0x1B)
    public static let handleValueIndication = AttributeOpcode(0x1D)
    public static let handleValueConfirmation = AttributeOpcode(0x1E)
    public static let readMultipleVariableRequest = AttributeOpcode(0x20)
    public static let readMultipleVariableResponse = AttributeOpcode(0x21)
    public static let multipleHandleValueNotification = AttributeOpcode(0x23)
    public static let writeCommand = AttributeOpcode(0x52)
    public static let signedWriteCommand = AttributeOpcode(0xD2)

    /// Commands get no response, not even an error (Core Vol 3 Part F 3.3).
    public var isCommand: Bool { rawValue & 0x40 != 0 }

    /// The PDU ends with a 12-byte authentication signature.
    public var hasAuthenticationSignature: Bool { rawValue & 0x80 != 0 }

    /// Responses a client waits for (the server never receives these).
    public var isResponse: Bool {
        switch self {
        case .errorResponse, .exchangeMTUResponse, .findInformationResponse, .findByTypeValueResponse,
             .readByTypeResponse, .readResponse, .readBlobResponse, .readMultipleResponse,
             .readByGroupTypeResponse, .writeResponse, .prepareWriteResponse, .executeWriteResponse,
             .readMultipleVariableResponse:
            return true
        default:
            return false
        }
    }

    /// PDUs a server sends on its own initiative.
    public var isServerInitiated: Bool {
        self == .handleValueNotification || self == .handleValueIndication || self == .multipleHandleValueNotification
    }

    public var name: String {
        switch self {
        case .errorResponse: return "Error Rsp"
        case .exchangeMTURequest: return "Exchange MTU Req"
        case .exchangeMTUResponse: return "Exchange MTU Rsp"
        case .findInformationRequest: return "Find Information Req"
        case .findInformationResponse: return "Find Information Rsp"
        case .findByTypeValueRequest: return "Find By Type Value Req"
        case .findByTypeValueResponse: return "Find By Type Value Rsp"
        case .readByTypeRequest: return "Read By Type Req"
        case .readByTypeResponse: return "Read By Type Rsp"
        case .readRequest: return "Read Req"
        case .readResponse: return "Read Rsp"
        case .readBlobRequest: return "Read Blob Req"
        case .readBlobResponse: return "Read Blob Rsp"
        case .readMultipleRequest: return "Read Multiple Req"
        case .readMultipleResponse: return "Read Multiple Rsp"
        case .readByGroupTypeRequest: return "Read By Group Type Req"
        case .readByGroupTypeResponse: return "Read By Group Type Rsp"
        case .writeRequest: return "Write Req"
        case .writeResponse: return "Write Rsp"
        case .prepareWriteRequest: return "Prepare Write Req"
        case .prepareWriteResponse: return "Prepare Write Rsp"
        case .executeWriteRequest: return "Execute Write Req"
        case .executeWriteResponse: return "Execute Write Rsp"
        case .handleValueNotification: return "Handle Value Ntf"
        case .handleValueIndication: return "Handle Value Ind"
        case .handleValueConfirmation: return "Handle Value Cfm"
        case .readMultipleVariableRequest: return "Read Multiple Variable Req"
        case .readMultipleVariableResponse: return "Read Multiple Variable Rsp"
        case .multipleHandleValueNotification: return "Multiple Handle Value Ntf"
        case .writeCommand: return "Write Cmd"
        case .signedWriteCommand: return "Signed Write Cmd"
        default: return "opcode 0x" + hex(rawValue, digits: 2)
        }
    }

    public var description: String { name }
}
