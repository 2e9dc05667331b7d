import ATT
import BluetoothCore

/// The longest attribute value GATT allows (Core Vol 3 Part F 3.2.9).
public let maximumAttributeValueLength = 512

/// One queued GATT client procedure with the state it has gathered so far.
/// A procedure may take several ATT transactions (discovery pages, blobs);
/// the bearer sends `request(mtu:)`, feeds the answer to `step`, and either
/// keeps the returned procedure outstanding or reports its result under
/// the procedure's id.
enum ClientProcedure {
    /// The id names the request; `T` says what its result carries.
    typealias Completion<T> = GATTRequestID

    case exchangeMTU(clientRxMTU: UInt16, Completion<Int>)
    /// `uuid` nil discovers all primary services (Read By Group Type),
    /// otherwise services with that UUID (Find By Type Value).
    case discoverServices(uuid: BluetoothUUID?, next: AttributeHandle, found: [GATTService], Completion<[GATTService]>)
    case discoverCharacteristics(range: AttributeHandleRange, next: AttributeHandle, found: [GATTCharacteristic], Completion<[GATTCharacteristic]>)
    case discoverDescriptors(range: AttributeHandleRange, next: AttributeHandle, found: [GATTDescriptor], Completion<[GATTDescriptor]>)
    /// A Read Request, then Read Blob Requests while the value fills the PDU.
    case read(AttributeHandle, value: [UInt8], Completion<[UInt8]>)
    case write(AttributeHandle, value: [UInt8], Completion<Void>)
    /// A Write Command: it goes out in queue order and completes when sent.
    case writeCommand(AttributeHandle, value: [UInt8], Completion<Void>)

    enum Step {
        /// Send the procedure's next request and keep it outstanding.
        case next(ClientProcedure)
        /// Finished with this result.
        case done(GATTClientResult)
    }

    /// The request for the procedure's current state.
    func request() -> ATTPDU {
        switch self {
        case .exchangeMTU(let mtu, _):
            return .exchangeMTURequest(clientRxMTU: mtu)
        case .discoverServices(let uuid, let next, _, _):
            let range = AttributeHandleRange(start: next, end: .last)
            if let uuid {
                return .findByTypeValueRequest(range, type: 0x2800, value: uuid.compactLittleEndian)
            }
            return .readByGroupTypeRequest(range, type: GATTUUID.primaryService)
        case .discoverCharacteristics(let range, let next, _, _):
            return .readByTypeRequest(AttributeHandleRange(start: next, end: range.end), type: GATTUUID.characteristic)
        case .discoverDescriptors(let range, let next, _, _):
            return .findInformationRequest(AttributeHandleRange(start: next, end: range.end))
        case .read(let handle, let value, _):
            // Continuations only happen after a full first response, so an
            // empty value means the first read.
            return value.isEmpty ? .readRequest(handle) : .readBlobRequest(handle, offset: UInt16(value.count))
        case .write(let handle, let value, _):
            return .writeRequest(handle, value: value)
        case .writeCommand(let handle, let value, _):
            return .writeCommand(handle, value: value)
        }
    }

    /// Why the procedure cannot start with this MTU, if it cannot.
    func check(mtu: Int) -> GATTError? {
        switch self {
        case .write(_, let value, _), .writeCommand(_, let value, _):
            // Values longer than one PDU would need Prepare/Execute Write.
            return value.count > mtu - 3 || value.count > maximumAttributeValueLength ? .valueTooLong : nil
        default:
            return nil
        }
    }

    /// The id its result is reported under.
    var id: GATTRequestID {
        switch self {
        case .exchangeMTU(_, let id), .discoverServices(_, _, _, let id), .discoverCharacteristics(_, _, _, let id),
             .discoverDescriptors(_, _, _, let id), .read(_, _, let id), .write(_, _, let id), .writeCommand(_, _, let id):
            return id
        }
    }

    /// Advances on the response to `request()`. The bearer has already
    /// checked that the response opcode answers the request, and has applied
    /// a new MTU from an Exchange MTU Response.
    func step(_ response: ATTPDU, mtu: Int) -> Step {
        let malformed = Step.done(.failure(.malformedResponse(response.opcode)))
        if case .errorResponse(_, let handle, let code) = response {
            return stepOnError(code, handle: handle, mtu: mtu)
        }
        switch self {
        case .exchangeMTU:
            return .done(.mtu(mtu))

        case .discoverServices(let uuid, let next, var found, let id):
            var cursor = next
            switch response {
            case .readByGroupTypeResponse(let entries) where uuid == nil:
                for entry in entries {
                    guard entry.handle >= cursor, entry.groupEnd >= entry.handle,
                          let serviceUUID = BluetoothUUID(littleEndian: entry.value[...]) else { return malformed }
                    found.append(GATTService(uuid: serviceUUID, handles: AttributeHandleRange(start: entry.handle, end: entry.groupEnd)))
                    guard let after = entry.groupEnd.next else { return .done(.services(found)) }
                    cursor = after
                }
            case .findByTypeValueResponse(let entries):
                guard let uuid else { return malformed }
                for entry in entries {
                    guard entry.found >= cursor, entry.groupEnd >= entry.found else { return malformed }
                    found.append(GATTService(uuid: uuid, handles: AttributeHandleRange(start: entry.found, end: entry.groupEnd)))
                    guard let after = entry.groupEnd.next else { return .done(.services(found)) }
                    cursor = after
                }
            default:
                return malformed
            }
            return .next(.discoverServices(uuid: uuid, next: cursor, found: found, id))

        case .discoverCharacteristics(let range, let next, var found, let id):
            guard case .readByTypeResponse(let entries) = response else { return malformed }
            var cursor = next
            for entry in entries {
                var r = ByteReader(entry.value)
                // The value follows its declaration inside the service
                // (Core Vol 3 Part G 3.3.2); a value handle of 0 or outside
                // the range would send later reads and CCCD writes astray.
                guard entry.handle >= cursor, entry.handle <= range.end,
                      entry.value.count == 5 || entry.value.count == 19,
                      let properties = r.u8(), let valueHandle = r.u16(),
                      valueHandle > entry.handle.value, valueHandle <= range.end.value,
                      let uuid = BluetoothUUID(littleEndian: r.rest()) else { return malformed }
                found.append(GATTCharacteristic(uuid: uuid, declarationHandle: entry.handle, valueHandle: AttributeHandle(valueHandle),
                                                properties: CharacteristicProperties(rawValue: properties), endHandle: range.end))
                guard let after = entry.handle.next, after <= range.end else {
                    return .done(.characteristics(ClientProcedure.closeCharacteristics(found, serviceEnd: range.end)))
                }
                cursor = after
            }
            return .next(.discoverCharacteristics(range: range, next: cursor, found: found, id))

        case .discoverDescriptors(let range, let next, var found, let id):
            guard case .findInformationResponse(let entries) = response else { return malformed }
            var cursor = next
            for entry in entries {
                guard entry.handle >= cursor, entry.handle <= range.end else { return malformed }
                found.append(GATTDescriptor(uuid: entry.uuid, handle: entry.handle))
                guard let after = entry.handle.next, after <= range.end else { return .done(.descriptors(found)) }
                cursor = after
            }
            return .next(.discoverDescriptors(range: range, next: cursor, found: found, id))

        case .read(let handle, var value, let id):
            let part: [UInt8]
            switch response {
            case .readResponse(let bytes) where value.isEmpty: part = bytes
            case .readBlobResponse(let bytes) where !value.isEmpty: part = bytes
            default: return malformed
            }
            value += part
            // A full PDU may mean there is more (Core Vol 3 Part G 4.8.3);
            // 512 bytes is the most any attribute holds, so a server that
            // keeps sending full PDUs cannot keep us reading forever.
            if part.count == mtu - 1 && value.count < maximumAttributeValueLength {
                return .next(.read(handle, value: value, id))
            }
            return .done(.value(value))

        case .write:
            guard case .writeResponse = response else { return malformed }
            return .done(.written)

        case .writeCommand:
            return malformed
        }
    }

    private func stepOnError(_ code: ATTErrorCode, handle: AttributeHandle, mtu: Int) -> Step {
        let failure = Step.done(.failure(.att(code, handle: handle)))
        switch self {
        case .exchangeMTU:
            // A server without MTU exchange keeps the default MTU.
            guard code == .requestNotSupported else { return failure }
            return .done(.mtu(mtu))
        case .discoverServices(_, _, let found, _):
            guard code == .attributeNotFound else { return failure }
            return .done(.services(found))
        case .discoverCharacteristics(let range, _, let found, _):
            guard code == .attributeNotFound else { return failure }
            return .done(.characteristics(ClientProcedure.closeCharacteristics(found, serviceEnd: range.end)))
        case .discoverDescriptors(_, _, let found, _):
            guard code == .attributeNotFound else { return failure }
            return .done(.descriptors(found))
        case .read(_, let value, _):
            // The value was exactly one PDU long after all.
            guard !value.isEmpty, code == .attributeNotLong || code == .invalidOffset else { return failure }
            return .done(.value(value))
        case .write, .writeCommand:
            return failure
        }
    }

    /// Each characteristic ends where the next declaration starts.
    static func closeCharacteristics(_ found: [GATTCharacteristic], serviceEnd: AttributeHandle) -> [GATTCharacteristic] {
        var out: [GATTCharacteristic] = []
        out.reserveCapacity(found.count)
        for (i, c) in found.enumerated() {
            let end = i + 1 < found.count ? AttributeHandle(found[i + 1].declarationHandle.value - 1) : serviceEnd
            out.append(GATTCharacteristic(uuid: c.uuid, declarationHandle: c.declarationHandle, valueHandle: c.valueHandle,
                                          properties: c.properties, endHandle: end))
        }
        return out
    }
}
