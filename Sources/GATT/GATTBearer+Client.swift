import ATT
import BluetoothCore

/// The GATT client procedures (Core Vol 3 Part G 4). Each request joins the
/// bearer's FIFO queue and calls its completion exactly once: with the
/// result, a `GATTError.att` for the peer's error response, or
/// `.timeout` / `.bearerClosed`. A completion runs inside the call that
/// finished it (`receive`, `handleTimeout`, `close`, or the request itself
/// when the bearer is already closed); it may queue further requests.
extension GATTBearer {
    /// Asks for `preferredMTU`; completes with the ATT_MTU now in use.
    public func exchangeMTU(_ completion: @escaping GATTCompletion<Int> = { _ in }) {
        enqueue(.exchangeMTU(clientRxMTU: preferredMTU, completion))
    }

    public func discoverAllPrimaryServices(_ completion: @escaping GATTCompletion<[GATTService]>) {
        enqueue(.discoverServices(uuid: nil, next: .first, found: [], completion))
    }

    /// Services with this UUID (usually zero or one).
    public func discoverPrimaryServices(uuid: BluetoothUUID, _ completion: @escaping GATTCompletion<[GATTService]>) {
        enqueue(.discoverServices(uuid: uuid, next: .first, found: [], completion))
    }

    public func discoverCharacteristics(of service: GATTService, _ completion: @escaping GATTCompletion<[GATTCharacteristic]>) {
        discoverCharacteristics(in: service.handles, completion)
    }

    public func discoverCharacteristics(in range: AttributeHandleRange, _ completion: @escaping GATTCompletion<[GATTCharacteristic]>) {
        guard range.isValid else { return completion(.failure(.invalidArgument)) }
        enqueue(.discoverCharacteristics(range: range, next: range.start, found: [], completion))
    }

    /// The descriptors between the characteristic's value and its end.
    /// With no handle between them there is nothing to ask: it completes
    /// at once with none.
    public func discoverDescriptors(of characteristic: GATTCharacteristic, _ completion: @escaping GATTCompletion<[GATTDescriptor]>) {
        guard let range = characteristic.descriptorRange else { return completion(.success([])) }
        discoverDescriptors(in: range, completion)
    }

    public func discoverDescriptors(in range: AttributeHandleRange, _ completion: @escaping GATTCompletion<[GATTDescriptor]>) {
        guard range.isValid else { return completion(.failure(.invalidArgument)) }
        enqueue(.discoverDescriptors(range: range, next: range.start, found: [], completion))
    }

    /// Reads a value of any length: Read, then Read Blob while responses fill the PDU.
    public func read(_ handle: AttributeHandle, _ completion: @escaping GATTCompletion<[UInt8]>) {
        enqueue(.read(handle, value: [], completion))
    }

    /// Write Request: completes when the server confirms. Values up to ATT_MTU - 3.
    public func write(_ handle: AttributeHandle, value: [UInt8], _ completion: @escaping GATTCompletion<Void>) {
        enqueue(.write(handle, value: value, completion))
    }

    /// Write Command: no answer from the server; completes when queued for sending.
    public func writeWithoutResponse(_ handle: AttributeHandle, value: [UInt8], _ completion: GATTCompletion<Void>? = nil) {
        enqueue(.writeCommand(handle, value: value, completion))
    }

    /// Installs `onValue` for the characteristic's notifications or
    /// indications, then writes its CCCD. On failure the handler is removed.
    public func subscribe(valueHandle: AttributeHandle, cccd: AttributeHandle, indications: Bool = false,
                          onValue: @escaping ([UInt8]) -> Void, _ completion: @escaping GATTCompletion<Void>) {
        valueHandlers[valueHandle] = onValue
        let configuration: ClientConfiguration = indications ? .indication : .notification
        // The closure holds the bearer only while the write is pending.
        write(cccd, value: configuration.bytes) { result in
            if case .failure = result { self.valueHandlers[valueHandle] = nil }
            completion(result)
        }
    }

    /// Stops delivering values at once, then clears the CCCD.
    public func unsubscribe(valueHandle: AttributeHandle, cccd: AttributeHandle, _ completion: @escaping GATTCompletion<Void>) {
        valueHandlers[valueHandle] = nil
        write(cccd, value: ClientConfiguration().bytes, completion)
    }

    /// Routes values of `valueHandle` without writing a CCCD (e.g. for a
    /// subscription that persists in a bond), or stops routing with nil.
    public func setValueHandler(for valueHandle: AttributeHandle, _ handler: (([UInt8]) -> Void)?) {
        valueHandlers[valueHandle] = handler
    }

    /// Requests queued or outstanding.
    public var pendingRequestCount: Int { queue.count + (active == nil ? 0 : 1) }
}
