import ATT
import BluetoothCore

/// GATT client outcomes as the sans-I/O service clients (ANCS, AMS, the
/// pairing routine) take them.
extension RemoteOperationResult {
    /// A read's, a write's or a CCCD write's outcome as a service client
    /// sees it: the value read, done, or why not.
    public init(_ result: GATTClientResult) {
        switch result {
        case .value(let bytes): self = .value(bytes)
        case .failure(let error): self.init(error)
        default: self = .done
        }
    }

    /// The peer's ATT error code when it sent one; anything else (timeout,
    /// link gone, a garbled answer) is `.failed`.
    public init(_ error: GATTError) {
        if let code = error.attErrorCode {
            self = .attError(code.rawValue)
        } else {
            self = .failed
        }
    }
}
