import BluetoothCore

extension ATTPDU {
    /// Reads one PDU. Every length is checked against the bytes present:
    /// truncated PDUs, extra bytes after fixed-size PDUs and lists that do not
    /// divide into whole entries are errors, never traps.
    public static func decode(_ bytes: [UInt8]) throws(ATTDecodeError) -> ATTPDU {
        try decode(bytes[...])
    }

    public static func decode(_ bytes: ArraySlice<UInt8>) throws(ATTDecodeError) -> ATTPDU {
        var r = ByteReader(bytes)
        guard let first = r.u8() else { throw .empty }
        let op = AttributeOpcode(first)
        let bad = ATTDecodeError.invalidLength(op)

        switch op {
        case .errorResponse:
            guard let request = r.u8(), let handle = r.u16(), let code = r.u8(), r.isAtEnd else { throw bad }
            return .errorResponse(request: AttributeOpcode(request), handle: AttributeHandle(handle), error: ATTErrorCode(code))

        case .exchangeMTURequest, .exchangeMTUResponse:
            guard let mtu = r.u16(), r.isAtEnd else { throw bad }
            return op == .exchangeMTURequest ? .exchangeMTURequest(clientRxMTU: mtu) : .exchangeMTUResponse(serverRxMTU: mtu)

        case .findInformationRequest:
            guard let range = r.range(), r.isAtEnd else { throw bad }
            return .findInformationRequest(range)

        case .findInformationResponse:
            guard let format = r.u8() else { throw bad }
            let uuidLength: Int
            switch format {
            case 0x01: uuidLength = 2
            case 0x02: uuidLength = 16
            default: throw .invalidFormat(op)
            }
            let entryLength = 2 + uuidLength
            guard r.remainingCount > 0, r.remainingCount % entryLength == 0 else { throw bad }
            var entries: [AttributeHandleUUID] = []
            entries.reserveCapacity(r.remainingCount / entryLength)
            while !r.isAtEnd {
                guard let handle = r.u16(), let raw = r.bytes(uuidLength),
                      let uuid = BluetoothUUID(littleEndian: raw) else { throw bad }
                entries.append(AttributeHandleUUID(handle: AttributeHandle(handle), uuid: uuid))
            }
            return .findInformationResponse(entries)

        case .findByTypeValueRequest:
            guard let range = r.range(), let type = r.u16() else { throw bad }
            return .findByTypeValueRequest(range, type: type, value: Array(r.rest()))

        case .findByTypeValueResponse:
            guard r.remainingCount > 0, r.remainingCount % 4 == 0 else { throw bad }
            var entries: [AttributeHandlesInformation] = []
            while let found = r.u16(), let end = r.u16() {
                entries.append(AttributeHandlesInformation(found: AttributeHandle(found), groupEnd: AttributeHandle(end)))
            }
            return .findByTypeValueResponse(entries)

        case .readByTypeRequest, .readByGroupTypeRequest:
            guard let range = r.range() else { throw bad }
            // Only 16- and 128-bit UUIDs are allowed here (Vol 3 Part F 3.4.4.1).
            guard r.remainingCount == 2 || r.remainingCount == 16 else { throw bad }
            guard let uuid = BluetoothUUID(littleEndian: r.rest()) else { throw bad }
            return op == .readByTypeRequest ? .readByTypeRequest(range, type: uuid) : .readByGroupTypeRequest(range, type: uuid)

        case .readByTypeResponse:
            guard let length = r.u8() else { throw bad }
            guard length >= 2 else { throw .invalidFormat(op) }
            let entryLength = Int(length)
            guard r.remainingCount > 0, r.remainingCount % entryLength == 0 else { throw bad }
            var entries: [AttributeData] = []
            while !r.isAtEnd {
                guard let handle = r.u16(), let value = r.array(entryLength - 2) else { throw bad }
                entries.append(AttributeData(handle: AttributeHandle(handle), value: value))
            }
            return .readByTypeResponse(entries)

        case .readRequest:
            guard let handle = r.u16(), r.isAtEnd else { throw bad }
            return .readRequest(AttributeHandle(handle))

        case .readResponse:
            return .readResponse(Array(r.rest()))

        case .readBlobRequest:
            guard let handle = r.u16(), let offset = r.u16(), r.isAtEnd else { throw bad }
            return .readBlobRequest(AttributeHandle(handle), offset: offset)

        case .readBlobResponse:
            return .readBlobResponse(Array(r.rest()))

        case .readMultipleRequest:
            // A Set Of Handles of two or more handles.
            guard r.remainingCount >= 4, r.remainingCount % 2 == 0 else { throw bad }
            var handles: [AttributeHandle] = []
            while let handle = r.u16() { handles.append(AttributeHandle(handle)) }
            return .readMultipleRequest(handles)

        case .readMultipleResponse:
            return .readMultipleResponse(Array(r.rest()))

        case .readByGroupTypeResponse:
            guard let length = r.u8() else { throw bad }
            guard length >= 4 else { throw .invalidFormat(op) }
            let entryLength = Int(length)
            guard r.remainingCount > 0, r.remainingCount % entryLength == 0 else { throw bad }
            var entries: [AttributeGroupData] = []
            while !r.isAtEnd {
                guard let handle = r.u16(), let end = r.u16(), let value = r.array(entryLength - 4) else { throw bad }
                entries.append(AttributeGroupData(handle: AttributeHandle(handle), groupEnd: AttributeHandle(end), value: value))
            }
            return .readByGroupTypeResponse(entries)

        case .writeRequest, .writeCommand, .handleValueNotification, .handleValueIndication:
            guard let handle = r.u16() else { throw bad }
            let h = AttributeHandle(handle)
            let value = Array(r.rest())
            switch op {
            case .writeRequest: return .writeRequest(h, value: value)
            case .writeCommand: return .writeCommand(h, value: value)
            case .handleValueNotification: return .handleValueNotification(h, value: value)
            default: return .handleValueIndication(h, value: value)
            }

        case .signedWriteCommand:
            guard let handle = r.u16(), r.remainingCount >= signatureLength else { throw bad }
            guard let value = r.array(r.remainingCount - signatureLength) else { throw bad }
            return .signedWriteCommand(AttributeHandle(handle), value: value, signature: Array(r.rest()))

        case .prepareWriteRequest, .prepareWriteResponse:
            guard let handle = r.u16(), let offset = r.u16() else { throw bad }
            let value = Array(r.rest())
            return op == .prepareWriteRequest
                ? .prepareWriteRequest(AttributeHandle(handle), offset: offset, value: value)
                : .prepareWriteResponse(AttributeHandle(handle), offset: offset, value: value)

        case .executeWriteRequest:
            guard let flags = r.u8(), r.isAtEnd else { throw bad }
            return .executeWriteRequest(flags: flags)

        case .writeResponse, .executeWriteResponse, .handleValueConfirmation:
            guard r.isAtEnd else { throw bad }
            switch op {
            case .writeResponse: return .writeResponse
            case .executeWriteResponse: return .executeWriteResponse
            default: return .handleValueConfirmation
            }

        default:
            throw .unknownOpcode(op)
        }
    }
}

extension ByteReader {
    mutating func range() -> AttributeHandleRange? {
        guard let start = u16(), let end = u16() else { return nil }
        return AttributeHandleRange(start, end)
    }
}
