import ATT
import BluetoothCore

/// GATT client outcomes as the sans-I/O service clients (ANCS, AMS, the
/// pairing routine) take them.
extension RemoteOperationResult {
    /// A read's outcome as a service client sees it.
    public init(_ result: Result<[UInt8], GATTError>) {
        switch result {
        case .success(let bytes): self = .value(bytes)
        case .failure(let error): self.init(error)
        }
    }

    /// A write's (or a CCCD write's) outcome as a service client sees it.
    public init(_ result: Result<Void, GATTError>) {
        switch result {
        case .success: self = .done
        case .failure(let error): self.init(error)
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
