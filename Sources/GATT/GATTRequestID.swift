/// Names one GATT client procedure queued on a bearer: queuing it returns
/// the id, and the bearer reports its end as
/// `GATTBearerEvent.completed(id, result)`, so the caller keeps what the
/// request was for (a value) instead of a closure to run.
public struct GATTRequestID: Hashable, CustomStringConvertible {
    public let value: UInt32

    public init(_ value: UInt32) { self.value = value }

    public var description: String { "request \(value)" }
}

/// How a GATT client procedure ended: what it found or read, or why it failed.
public enum GATTClientResult: Hashable {
    /// Exchange MTU: the ATT_MTU now in use.
    case mtu(Int)
    case services([GATTService])
    case characteristics([GATTCharacteristic])
    case descriptors([GATTDescriptor])
    /// A read's value (any length).
    case value([UInt8])
    /// A write, a Write Command or a CCCD write (subscribe, unsubscribe).
    case written
    /// A bound service's discovery (`GATTServiceBinding.discover`).
    case discovered(GATTServiceDiscovery)
    /// The peer's error response (`GATTError.att`), `.timeout`,
    /// `.bearerClosed` or a response that made no sense.
    case failure(GATTError)

    public var error: GATTError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
