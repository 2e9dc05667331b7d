import BluetoothCore

/// The default and minimum ATT_MTU on an LE bearer (Core Vol 3 Part F 3.2.8).
public let attDefaultMTU = 23

/// An attribute handle with the UUID of its type (Find Information Rsp).
public struct AttributeHandleUUID: Hashable {
    public let handle: AttributeHandle
    public let uuid: BluetoothUUID
    public init(handle: AttributeHandle, uuid: BluetoothUUID) {
        self.handle = handle
        self.uuid = uuid
    }
}

/// One attribute found by Find By Type Value: its handle and the end of its group.
public struct AttributeHandlesInformation: Hashable {
    public let found: AttributeHandle
    public let groupEnd: AttributeHandle
    public init(found: AttributeHandle, groupEnd: AttributeHandle) {
        self.found = found
        self.groupEnd = groupEnd
    }
}

/// One attribute handle with its (possibly truncated) value (Read By Type Rsp).
public struct AttributeData: Hashable {
    public let handle: AttributeHandle
    public let value: [UInt8]
    public init(handle: AttributeHandle, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}

/// One group with its end handle and value (Read By Group Type Rsp).
public struct AttributeGroupData: Hashable {
    public let handle: AttributeHandle
    public let groupEnd: AttributeHandle
    public let value: [UInt8]
    public init(handle: AttributeHandle, groupEnd: AttributeHandle, value: [UInt8]) {
        self.handle = handle
        self.groupEnd = groupEnd
        self.value = value
    }
}

/// Every ATT PDU the GATT client and server exchange (Core Vol 3 Part F 3.4),
/// with typed fields. `decode` never traps: bad lengths become an
/// `ATTDecodeError`. `encode` writes exactly what the case holds; callers
/// keep values within the bearer's MTU.
public enum ATTPDU: Hashable {
    case errorResponse(request: AttributeOpcode, handle: AttributeHandle, error: ATTErrorCode)
    case exchangeMTURequest(clientRxMTU: UInt16)
    case exchangeMTUResponse(serverRxMTU: UInt16)
    case findInformationRequest(AttributeHandleRange)
    /// All entries use 16-bit UUIDs or all use 128-bit UUIDs.
    case findInformationResponse([AttributeHandleUUID])
    /// The attribute type is always a 16-bit UUID in this request.
    case findByTypeValueRequest(AttributeHandleRange, type: UInt16, value: [UInt8])
    case findByTypeValueResponse([AttributeHandlesInformation])
    case readByTypeRequest(AttributeHandleRange, type: BluetoothUUID)
    /// All entries carry values of the same length.
    case readByTypeResponse([AttributeData])
    case readRequest(AttributeHandle)
    case readResponse([UInt8])
    case readBlobRequest(AttributeHandle, offset: UInt16)
    case readBlobResponse([UInt8])
    /// Two or more handles.
    case readMultipleRequest([AttributeHandle])
    case readMultipleResponse([UInt8])
    case readByGroupTypeRequest(AttributeHandleRange, type: BluetoothUUID)
    /// All entries carry values of the same length.
    case readByGroupTypeResponse([AttributeGroupData])
    case writeRequest(AttributeHandle, value: [UInt8])
    case writeResponse
    case writeCommand(AttributeHandle, value: [UInt8])
    case signedWriteCommand(AttributeHandle, value: [UInt8], signature: [UInt8])
    case prepareWriteRequest(AttributeHandle, offset: UInt16, value: [UInt8])
    case prepareWriteResponse(AttributeHandle, offset: UInt16, value: [UInt8])
    /// flags 0x00 cancels all prepared writes, 0x01 writes them.
    case executeWriteRequest(flags: UInt8)
    case executeWriteResponse
    case handleValueNotification(AttributeHandle, value: [UInt8])
    case handleValueIndication(AttributeHandle, value: [UInt8])
    case handleValueConfirmation

    /// The length of the authentication signature of a Signed Write Command.
    public static let signatureLength = 12

    public var opcode: AttributeOpcode {
        switch self {
        case .errorResponse: return .errorResponse
        case .exchangeMTURequest: return .exchangeMTURequest
        case .exchangeMTUResponse: return .exchangeMTUResponse
        case .findInformationRequest: return .findInformationRequest
        case .findInformationResponse: return .findInformationResponse
        case .findByTypeValueRequest: return .findByTypeValueRequest
        case .findByTypeValueResponse: return .findByTypeValueResponse
        case .readByTypeRequest: return .readByTypeRequest
        case .readByTypeResponse: return .readByTypeResponse
        case .readRequest: return .readRequest
        case .readResponse: return .readResponse
        case .readBlobRequest: return .readBlobRequest
        case .readBlobResponse: return .readBlobResponse
        case .readMultipleRequest: return .readMultipleRequest
        case .readMultipleResponse: return .readMultipleResponse
        case .readByGroupTypeRequest: return .readByGroupTypeRequest
        case .readByGroupTypeResponse: return .readByGroupTypeResponse
        case .writeRequest: return .writeRequest
        case .writeResponse: return .writeResponse
        case .writeCommand: return .writeCommand
        case .signedWriteCommand: return .signedWriteCommand
        case .prepareWriteRequest: return .prepareWriteRequest
        case .prepareWriteResponse: return .prepareWriteResponse
        case .executeWriteRequest: return .executeWriteRequest
        case .executeWriteResponse: return .executeWriteResponse
        case .handleValueNotification: return .handleValueNotification
        case .handleValueIndication: return .handleValueIndication
        case .handleValueConfirmation: return .handleValueConfirmation
        }
    }

    /// The PDU's bytes, opcode first.
    public func encode() -> [UInt8] {
        var w = ByteWriter(capacity: encodedCapacity + [UInt8].lowerHeadersRoom)
        w.u8(opcode.rawValue)
        switch self {
        case .errorResponse(let request, let handle, let error):
            w.u8(request.rawValue)
            w.u16(handle.value)
            w.u8(error.rawValue)
        case .exchangeMTURequest(let mtu), .exchangeMTUResponse(let mtu):
            w.u16(mtu)
        case .findInformationRequest(let range):
            w.range(range)
        case .findInformationResponse(let entries):
            let long = entries.first.map { $0.uuid.shortValue == nil } ?? false
            w.u8(long ? 0x02 : 0x01)
            for entry in entries {
                w.u16(entry.handle.value)
                w.append(long ? entry.uuid.fullLittleEndian : entry.uuid.compactLittleEndian)
            }
        case .findByTypeValueRequest(let range, let type, let value):
            w.range(range)
            w.u16(type)
            w.append(value)
        case .findByTypeValueResponse(let entries):
            for entry in entries {
                w.u16(entry.found.value)
                w.u16(entry.groupEnd.value)
            }
        case .readByTypeRequest(let range, let type), .readByGroupTypeRequest(let range, let type):
            w.range(range)
            w.append(type.compactLittleEndian)
        case .readByTypeResponse(let entries):
            w.u8(UInt8(truncatingIfNeeded: 2 + (entries.first?.value.count ?? 0)))
            for entry in entries {
                w.u16(entry.handle.value)
                w.append(entry.value)
            }
        case .readRequest(let handle):
            w.u16(handle.value)
        case .readResponse(let value), .readBlobResponse(let value), .readMultipleResponse(let value):
            w.append(value)
        case .readBlobRequest(let handle, let offset):
            w.u16(handle.value)
            w.u16(offset)
        case .readMultipleRequest(let handles):
            for handle in handles { w.u16(handle.value) }
        case .readByGroupTypeResponse(let entries):
            w.u8(UInt8(truncatingIfNeeded: 4 + (entries.first?.value.count ?? 0)))
            for entry in entries {
                w.u16(entry.handle.value)
                w.u16(entry.groupEnd.value)
                w.append(entry.value)
            }
        case .writeRequest(let handle, let value), .writeCommand(let handle, let value),
             .handleValueNotification(let handle, let value), .handleValueIndication(let handle, let value):
            w.u16(handle.value)
            w.append(value)
        case .signedWriteCommand(let handle, let value, let signature):
            w.u16(handle.value)
            w.append(value)
            w.append(signature)
        case .prepareWriteRequest(let handle, let offset, let value),
             .prepareWriteResponse(let handle, let offset, let value):
            w.u16(handle.value)
            w.u16(offset)
            w.append(value)
        case .executeWriteRequest(let flags):
            w.u8(flags)
        case .writeResponse, .executeWriteResponse, .handleValueConfirmation:
            break
        }
        return w.bytes
    }
}

extension ATTPDU {
    /// Room for the encoded PDU in one allocation: the PDUs sent on every
    /// notification (Write Requests to the ANCS Control Point) carry a
    /// value longer than a small default, and growing the array costs a
    /// second allocation and a copy. `encode` adds room for L2CAP's and
    /// the ACL packet's headers, which are put in front of the PDU in the
    /// same storage (`putInFront`).
    var encodedCapacity: Int {
        switch self {
        case .writeRequest(_, let value), .writeCommand(_, let value), .handleValueNotification(_, let value),
             .handleValueIndication(_, let value), .findByTypeValueRequest(_, _, let value):
            return 7 + value.count
        case .readResponse(let value), .readBlobResponse(let value), .readMultipleResponse(let value):
            return 1 + value.count
        case .prepareWriteRequest(_, _, let value), .prepareWriteResponse(_, _, let value):
            return 5 + value.count
        default:
            return 32
        }
    }
}

extension ByteWriter {
    mutating func range(_ range: AttributeHandleRange) {
        u16(range.start.value)
        u16(range.end.value)
    }
}
