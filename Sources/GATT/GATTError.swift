import ATT
import BluetoothCore

/// Why a GATT client request failed.
public enum GATTError: Error, Hashable, CustomStringConvertible {
    /// The peer answered with an ATT Error Response. Security errors
    /// (`code.isSecurityError`) ask for pairing or encryption; application
    /// errors (0x80-0x9F) carry the service's own meaning.
    case att(ATTErrorCode, handle: AttributeHandle)
    /// The response could not be decoded or contradicts the request
    /// (handles outside the range asked for, no progress, bad entry sizes).
    case malformedResponse(AttributeOpcode)
    /// A response that does not answer the request that is outstanding.
    case unexpectedResponse(AttributeOpcode)
    /// No response within 30 s: the ATT bearer is dead (Core Vol 3 Part F
    /// 3.3.3) and the owner has been asked to disconnect.
    case timeout
    /// The bearer ended (link lost, or an earlier timeout) before completion.
    case bearerClosed
    /// A value that cannot be sent: longer than 512 bytes, or longer than
    /// ATT_MTU - 3 for a Write Command.
    case valueTooLong
    /// A request that cannot be made: an empty or inverted handle range.
    case invalidArgument

    /// The ATT error code when the peer sent one.
    public var attErrorCode: ATTErrorCode? {
        if case .att(let code, _) = self { return code }
        return nil
    }

    public var description: String {
        switch self {
        case .att(let code, let handle): return code.description + " at " + handle.description
        case .malformedResponse(let op): return "malformed " + op.name
        case .unexpectedResponse(let op): return "unexpected " + op.name
        case .timeout: return "ATT transaction timeout"
        case .bearerClosed: return "ATT bearer closed"
        case .valueTooLong: return "value too long"
        case .invalidArgument: return "invalid request"
        }
    }
}
