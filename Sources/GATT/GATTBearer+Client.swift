import ATT
import BluetoothCore

/// The GATT client procedures (Core Vol 3 Part G 4). Each request joins the
/// bearer's FIFO queue and returns its id; it ends exactly once as
/// `GATTBearerEvent.completed(id, result)` (polled with `pollEvent`): with
/// what it found, a `GATTError.att` for the peer's error response, or
/// `.timeout` / `.bearerClosed`. A request refused at once (a closed
/// bearer, an invalid range) is reported the same way, never inside the
/// call, so the caller always records the id first.
extension GATTBearer {
    /// Asks for `preferredMTU`; completes with `.mtu`, the ATT_MTU now in use.
    @discardableResult
    public func exchangeMTU() -> GATTRequestID {
        enqueue(.exchangeMTU(clientRxMTU: preferredMTU, makeRequestID()))
    }

    /// Completes with `.services`.
    public func discoverAllPrimaryServices() -> GATTRequestID {
        enqueue(.discoverServices(uuid: nil, next: .first, found: [], makeRequestID()))
    }

    /// Services with this UUID (usually zero or one): `.services`.
    public func discoverPrimaryServices(uuid: BluetoothUUID) -> GATTRequestID {
        discoverPrimaryServices(uuid: uuid, id: makeRequestID())
    }

    func discoverPrimaryServices(uuid: BluetoothUUID, id: GATTRequestID) -> GATTRequestID {
        enqueue(.discoverServices(uuid: uuid, next: .first, found: [], id))
    }

    /// Completes with `.characteristics`.
    public func discoverCharacteristics(of service: GATTService) -> GATTRequestID {
        discoverCharacteristics(in: service.handles)
    }

    public func discoverCharacteristics(in range: AttributeHandleRange) -> GATTRequestID {
        enqueue(in: range) { .discoverCharacteristics(range: range, next: range.start, found: [], $0) }
    }

    /// The descriptors between the characteristic's value and its end:
    /// `.descriptors`. With no handle between them there is nothing to ask:
    /// it completes with none without a request.
    public func discoverDescriptors(of characteristic: GATTCharacteristic) -> GATTRequestID {
        guard let range = characteristic.descriptorRange else {
            let id = makeRequestID()
            complete(id, .descriptors([]))
            return id
        }
        return discoverDescriptors(in: range)
    }

    public func discoverDescriptors(in range: AttributeHandleRange) -> GATTRequestID {
        enqueue(in: range) { .discoverDescriptors(range: range, next: range.start, found: [], $0) }
    }

    /// Queues a procedure over `range`; an invalid range fails it without a request.
    private func enqueue(in range: AttributeHandleRange, _ procedure: (GATTRequestID) -> ClientProcedure) -> GATTRequestID {
        let id = makeRequestID()
        guard range.isValid else {
            complete(id, .failure(.invalidArgument))
            return id
        }
        return enqueue(procedure(id))
    }

    /// Reads a value of any length: Read, then Read Blob while responses
    /// fill the PDU. Completes with `.value`.
    @discardableResult
    public func read(_ handle: AttributeHandle) -> GATTRequestID {
        read(handle, id: makeRequestID())
    }

    @discardableResult
    func read(_ handle: AttributeHandle, id: GATTRequestID) -> GATTRequestID {
        enqueue(.read(handle, value: [], id))
    }

    /// Write Request: completes with `.written` when the server confirms.
    /// Values up to ATT_MTU - 3.
    @discardableResult
    public func write(_ handle: AttributeHandle, value: [UInt8]) -> GATTRequestID {
        write(handle, value: value, id: makeRequestID())
    }

    @discardableResult
    func write(_ handle: AttributeHandle, value: [UInt8], id: GATTRequestID) -> GATTRequestID {
        enqueue(.write(handle, value: value, id))
    }

    /// Write Command: no answer from the server; completes with `.written`
    /// when queued for sending.
    @discardableResult
    public func writeWithoutResponse(_ handle: AttributeHandle, value: [UInt8]) -> GATTRequestID {
        enqueue(.writeCommand(handle, value: value, makeRequestID()))
    }

    /// Writes a characteristic's CCCD for notifications (or indications).
    /// The values come out as `.valueReceived` events whether or not
    /// anyone subscribed: routing them is the owner's.
    @discardableResult
    public func subscribe(cccd: AttributeHandle, indications: Bool = false) -> GATTRequestID {
        subscribe(cccd: cccd, indications: indications, id: makeRequestID())
    }

    @discardableResult
    func subscribe(cccd: AttributeHandle, indications: Bool, id: GATTRequestID) -> GATTRequestID {
        let configuration: ClientConfiguration = indications ? .indication : .notification
        return write(cccd, value: configuration.bytes, id: id)
    }

    /// Clears a characteristic's CCCD.
    @discardableResult
    public func unsubscribe(cccd: AttributeHandle) -> GATTRequestID {
        unsubscribe(cccd: cccd, id: makeRequestID())
    }

    @discardableResult
    func unsubscribe(cccd: AttributeHandle, id: GATTRequestID) -> GATTRequestID {
        write(cccd, value: ClientConfiguration().bytes, id: id)
    }

    /// Requests queued or outstanding.
    public var pendingRequestCount: Int { queue.count + (active == nil ? 0 : 1) }
}
