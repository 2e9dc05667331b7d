/// How one GATT operation on the peer ended, as a sans-I/O service client
/// sees it. The owner runs the real GATT client and reports every operation
/// the client asked for with exactly one of these.
public enum RemoteOperationResult: Equatable {
    /// A read answered with this value.
    case value([UInt8])
    /// A write (or a CCCD write for a subscription) was confirmed.
    case done
    /// The peer answered with an ATT error code (including the service's
    /// own application errors 0x80-0x9F and the profile range 0xE0-0xFF).
    case attError(UInt8)
    /// No answer: the link went down or the ATT transaction timed out.
    case failed

    /// True for `.done` and `.value`: the peer accepted the operation.
    public var succeeded: Bool {
        switch self {
        case .done, .value: return true
        case .attError, .failed: return false
        }
    }
}
