import ATT
import BluetoothCore

/// Client Supported Features bits (Core Vol 3 Part G 7.2).
public struct ClientSupportedFeatures: OptionSet, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let robustCaching = ClientSupportedFeatures(rawValue: 0x01)
    public static let enhancedATTBearer = ClientSupportedFeatures(rawValue: 0x02)
    public static let multipleHandleValueNotifications = ClientSupportedFeatures(rawValue: 0x04)
}

/// A value the client wrote to a characteristic the head unit's layers
/// consume (a stored attribute with write permission): drained with
/// `GATTServer.pollWrite()`. A long write arrives whole, once executed.
public struct GATTServerWrite: Equatable {
    public let handle: AttributeHandle
    public let value: [UInt8]

    public init(handle: AttributeHandle, value: [UInt8]) {
        self.handle = handle
        self.value = value
    }
}

/// The server side of one ATT bearer: answers the peer's requests from the
/// shared database and keeps this client's CCCDs and features. Sans-I/O:
/// `respond` takes a request and gives the response bytes (nil for commands).
public struct GATTServer {
    /// The longest attribute value (Core Vol 3 Part F 3.2.9).
    public static let maxAttributeValueLength = 512
    /// Prepare Write requests queued at most, and their bytes: a 512-byte
    /// value at the smallest MTU takes 29 requests of 18 bytes, so two such
    /// values fit; a client asking for more gets Prepare Queue Full.
    public static let prepareQueueLimit = 64
    public static let prepareQueueBytes = 2 * maxAttributeValueLength

    public let database: GATTDatabase
    /// CCCD values of this client, by CCCD handle.
    public private(set) var clientConfigurations: [AttributeHandle: ClientConfiguration] = [:]
    /// The link is encrypted: attributes with `.encrypted` permission may
    /// be read and written. The owner sets it as encryption comes and goes.
    public var linkEncrypted = false
    public private(set) var clientFeatures: ClientSupportedFeatures = []
    /// Robust caching (Core Vol 3 Part G 2.5.2.1): false for a bonded client
    /// that last saw a different Database Hash (the owner knows; set it at
    /// bearer creation). A change-unaware client that enabled robust
    /// caching gets Database Out Of Sync until it catches up.
    public var isChangeAware = true
    private var outOfSyncReported = false
    /// CCCDs the client wrote on this connection: a restored value never
    /// overrides them.
    private var writtenThisConnection: Set<AttributeHandle> = []
    /// A CCCD changed, or the client became change-aware, since the owner
    /// last asked (`takeBondedStateChange`): a bonded client's state to store.
    private var bondedStateChanged = false
    /// Prepared writes of this client, in the order they came.
    private var prepareQueue: [(handle: AttributeHandle, offset: Int, value: [UInt8])] = []
    private var preparedBytes = 0
    private var writes = FIFO<GATTServerWrite>()

    public init(database: GATTDatabase) {
        self.database = database
    }

    /// The next value written to a characteristic the owner consumes.
    public mutating func pollWrite() -> GATTServerWrite? { writes.popFirst() }

    /// The next value written to a handle in `range` (one service's
    /// characteristics); writes elsewhere stay queued in their order, for
    /// the layer that consumes them.
    public mutating func pollWrite(in range: AttributeHandleRange) -> GATTServerWrite? {
        var found: GATTServerWrite? = nil
        for _ in 0..<writes.count {
            let write = writes.removeFirst()
            if found == nil && range.contains(write.handle) { found = write } else { writes.append(write) }
        }
        return found
    }

    /// What this database supports of the client features.
    var supportedFeatures: ClientSupportedFeatures {
        database.databaseHash == nil ? [] : .robustCaching
    }

    /// Restores a bonded client's CCCD (values persist across connections for bonds).
    public mutating func restoreClientConfiguration(_ value: ClientConfiguration, at handle: AttributeHandle) {
        clientConfigurations[handle] = value
    }

    private mutating func setClientConfiguration(_ value: ClientConfiguration, at handle: AttributeHandle) {
        writtenThisConnection.insert(handle)
        if (clientConfigurations[handle] ?? []) != value { bondedStateChanged = true }
        clientConfigurations[handle] = value
        Log.debug("gatt", "client configuration \(handle) = \(value.rawValue)")
    }

    // MARK: bonded clients (Core Vol 3 Part G 3.3.3.3: a bonded client's CCCDs persist across connections)

    /// True once after a CCCD changed or the client became change-aware.
    public mutating func takeBondedStateChange() -> Bool {
        defer { bondedStateChanged = false }
        return bondedStateChanged
    }

    /// This client's CCCDs that are not zero, by the characteristic they
    /// configure: stored by UUID, not handle, so they find their
    /// characteristic again in a database that has changed.
    public var storedConfigurations: [StoredClientConfiguration] {
        var out: [StoredClientConfiguration] = []
        for attribute in database.attributes {
            guard case .clientConfiguration = attribute.kind, let value = clientConfigurations[attribute.handle], !value.isEmpty,
                  let characteristic = database.attribute(at: AttributeHandle(attribute.handle.value &- 1)) else { continue }
            out.append(StoredClientConfiguration(characteristic: characteristic.type, value: value))
        }
        return out
    }

    /// Gives a bonded client back its stored CCCDs. A characteristic that
    /// is gone, or no longer sends that kind of update, is skipped, and a
    /// CCCD the client already wrote on this connection is kept.
    public mutating func restore(_ stored: [StoredClientConfiguration]) {
        for entry in stored {
            guard let value = database.attributes.first(where: { $0.type == entry.characteristic }),
                  let next = value.handle.next, let cccd = database.attribute(at: next),
                  case .clientConfiguration(let allowed) = cccd.kind else {
                Log.info("gatt", "stored client configuration for \(entry.characteristic): no such characteristic now; dropped")
                continue
            }
            guard !writtenThisConnection.contains(cccd.handle) else { continue }
            let kept = entry.value.intersection(allowed)
            clientConfigurations[cccd.handle] = kept
            Log.debug("gatt", "client configuration \(cccd.handle) = \(kept.rawValue) restored")
        }
    }

    /// The configuration of the CCCD that follows `valueHandle`'s characteristic value.
    public func clientConfiguration(forValue valueHandle: AttributeHandle) -> ClientConfiguration {
        guard let next = valueHandle.next, let cccd = database.attribute(at: next),
              cccd.type == GATTUUID.clientCharacteristicConfiguration else { return [] }
        return clientConfigurations[cccd.handle] ?? []
    }

    /// A Service Changed indication was confirmed: the client knows.
    mutating func serviceChangedConfirmed() {
        if !isChangeAware { bondedStateChanged = true }
        isChangeAware = true
        outOfSyncReported = false
    }

    // MARK: requests

    /// Answers one request or command (Exchange MTU is the bearer's).
    /// Returns the response PDU, or nil when none is due (commands).
    public mutating func respond(to bytes: [UInt8], mtu: Int) -> [UInt8]? { respond(to: bytes[...], mtu: mtu) }

    /// The same for a PDU where it lies in its L2CAP frame.
    public mutating func respond(to bytes: ArraySlice<UInt8>, mtu: Int) -> [UInt8]? {
        guard let first = bytes.first else { return nil }
        let op = AttributeOpcode(first)
        // ATT_MTU bounds every PDU, both ways (Core Vol 3 Part F 3.2.8). A
        // request over it is refused whole: answering it could overflow our
        // own response, as the Prepare Write Response echoes the value.
        if bytes.count > mtu {
            Log.info("gatt", "\(op) of \(bytes.count) bytes over the ATT_MTU of \(mtu)\(op.isCommand ? " ignored" : ": answering Invalid PDU")")
            if op.isCommand { return nil }
            return ATTPDU.errorResponse(request: op, handle: .invalid, error: .invalidPDU).encode()
        }
        let pdu: ATTPDU
        do {
            pdu = try ATTPDU.decode(bytes)
        } catch {
            if op.isCommand {
                Log.info("gatt", "ignoring malformed or unknown command \(op): \(error)")
                return nil
            }
            let code: ATTErrorCode
            switch error {
            case .unknownOpcode: code = .requestNotSupported
            default: code = .invalidPDU
            }
            Log.info("gatt", "answering \(op) with \(code): \(error)")
            return ATTPDU.errorResponse(request: op, handle: .invalid, error: code).encode()
        }
        switch outOfSync(pdu) {
        case .ignore: return nil
        case .respond(let bytes): return bytes
        case nil: return answer(pdu, mtu: mtu)?.encode()
        }
    }

    private func error(_ op: AttributeOpcode, _ handle: AttributeHandle, _ code: ATTErrorCode) -> ATTPDU {
        .errorResponse(request: op, handle: handle, error: code)
    }

    private mutating func answer(_ pdu: ATTPDU, mtu: Int) -> ATTPDU? {
        let op = pdu.opcode
        switch pdu {
        case .findInformationRequest(let range):
            guard range.isValid else { return error(op, range.start, .invalidHandle) }
            return findInformation(range, mtu: mtu)

        case .findByTypeValueRequest(let range, let type, let value):
            guard range.isValid else { return error(op, range.start, .invalidHandle) }
            return findByTypeValue(range, type: BluetoothUUID(type), value: value, mtu: mtu)

        case .readByTypeRequest(let range, let type):
            guard range.isValid else { return error(op, range.start, .invalidHandle) }
            return readByType(range, type: type, mtu: mtu)

        case .readByGroupTypeRequest(let range, let type):
            guard range.isValid else { return error(op, range.start, .invalidHandle) }
            guard type == GATTUUID.primaryService || type == GATTUUID.secondaryService else {
                return error(op, range.start, .unsupportedGroupType)
            }
            return readByGroupType(range, type: type, mtu: mtu)

        case .readRequest(let handle):
            switch readableValue(handle) {
            case .failure(let code): return error(op, handle, code)
            case .success(let value):
                if database.attribute(at: handle)?.type == GATTUUID.databaseHash { serviceChangedConfirmed() }
                return .readResponse(Array(value.prefix(mtu - 1)))
            }

        case .readBlobRequest(let handle, let offset):
            switch readableValue(handle) {
            case .failure(let code): return error(op, handle, code)
            case .success(let value):
                // A value that fits a Read Response is not long.
                guard value.count > mtu - 1 else { return error(op, handle, .attributeNotLong) }
                guard Int(offset) <= value.count else { return error(op, handle, .invalidOffset) }
                return .readBlobResponse(Array(value[Int(offset)...].prefix(mtu - 1)))
            }

        case .readMultipleRequest(let handles):
            var out: [UInt8] = []
            for handle in handles {
                switch readableValue(handle) {
                case .failure(let code): return error(op, handle, code)
                case .success(let value): out += value
                }
            }
            return .readMultipleResponse(Array(out.prefix(mtu - 1)))

        case .writeRequest(let handle, let value):
            if let code = write(value, at: handle) { return error(op, handle, code) }
            return .writeResponse

        case .writeCommand(let handle, let value):
            if let code = write(value, at: handle) {
                Log.info("gatt", "write command to \(handle) ignored: \(code)")
            }
            return nil

        case .signedWriteCommand(let handle, _, _):
            // No attribute here allows authenticated signed writes (and we
            // hold no CSRK to check a signature): commands are never answered.
            Log.info("gatt", "signed write command to \(handle) ignored")
            return nil

        case .prepareWriteRequest(let handle, let offset, let value):
            return prepare(value, at: handle, offset: Int(offset))

        case .executeWriteRequest(let flags):
            return execute(flags: flags)

        default:
            // PDUs a server never receives (responses are routed to the client
            // before they get here); a command among them is not answered.
            if op.isCommand { return nil }
            return error(op, .invalid, .requestNotSupported)
        }
    }

    // MARK: robust caching

    /// Database Out Of Sync for a change-unaware client that enabled robust
    /// caching, on requests that name attribute handles. Discovery stays
    /// allowed so the client can catch up, as does reading the hash.
    private enum Blocked {
        case ignore
        case respond([UInt8])
    }

    private mutating func outOfSync(_ pdu: ATTPDU) -> Blocked? {
        guard !isChangeAware, clientFeatures.contains(.robustCaching) else { return nil }
        // A change-unaware client's commands are ignored.
        if pdu.opcode.isCommand { return .ignore }
        var handle = AttributeHandle.invalid
        switch pdu {
        case .readRequest(let h), .readBlobRequest(let h, _), .writeRequest(let h, _), .prepareWriteRequest(let h, _, _):
            handle = h
        case .readMultipleRequest(let handles):
            handle = handles.first ?? .invalid
        case .readByTypeRequest(let range, let type):
            if type == GATTUUID.databaseHash { return nil }
            if type == GATTUUID.characteristic || type == GATTUUID.include || range == .all { return nil }
        default:
            return nil
        }
        // After one error, the client's next request proves it has seen it.
        if outOfSyncReported {
            serviceChangedConfirmed()
            return nil
        }
        outOfSyncReported = true
        return .respond(ATTPDU.errorResponse(request: pdu.opcode, handle: handle, error: .databaseOutOfSync).encode())
    }

    // MARK: reading

    /// The value of an attribute as this client sees it, or why it cannot be read.
    func readableValue(_ handle: AttributeHandle) -> Result<[UInt8], ATTErrorCode> {
        guard let attribute = database.attribute(at: handle) else { return .failure(.invalidHandle) }
        guard attribute.permissions.contains(.read) else { return .failure(.readNotPermitted) }
        if let refusal = securityRefusal(attribute) { return .failure(refusal) }
        return .success(currentValue(attribute))
    }

    /// Why this link may not use the attribute yet, if it may not.
    private func securityRefusal(_ attribute: GATTAttribute) -> ATTErrorCode? {
        attribute.permissions.contains(.encrypted) && !linkEncrypted ? .insufficientAuthentication : nil
    }

    func currentValue(_ attribute: GATTAttribute) -> [UInt8] {
        switch attribute.kind {
        case .clientConfiguration:
            return (clientConfigurations[attribute.handle] ?? []).bytes
        case .clientSupportedFeatures:
            return [clientFeatures.rawValue]
        case .databaseHash:
            return database.databaseHash ?? []
        case .service, .stored:
            return attribute.value
        }
    }

    private func attributes(in range: AttributeHandleRange) -> ArraySlice<GATTAttribute> {
        let all = database.attributes
        let lower = Int(range.start.value) - 1
        let upper = min(Int(range.end.value), all.count)
        guard lower >= 0, lower < upper else { return [] }
        return all[lower..<upper]
    }

    private func findInformation(_ range: AttributeHandleRange, mtu: Int) -> ATTPDU {
        var entries: [AttributeHandleUUID] = []
        var long = false
        var used = 2
        for attribute in attributes(in: range) {
            let isLong = attribute.type.shortValue == nil
            if entries.isEmpty { long = isLong } else if isLong != long { break }
            let size = 2 + (long ? 16 : 2)
            guard used + size <= mtu else { break }
            used += size
            entries.append(AttributeHandleUUID(handle: attribute.handle, uuid: attribute.type))
        }
        if entries.isEmpty { return error(.findInformationRequest, range.start, .attributeNotFound) }
        return .findInformationResponse(entries)
    }

    private func findByTypeValue(_ range: AttributeHandleRange, type: BluetoothUUID, value: [UInt8], mtu: Int) -> ATTPDU {
        var entries: [AttributeHandlesInformation] = []
        var used = 1
        for attribute in attributes(in: range) where attribute.type == type {
            guard attribute.permissions.contains(.read) else { continue }
            let current = currentValue(attribute)
            // Service UUIDs match in either width (a 16-bit UUID may be asked
            // for in its 128-bit form).
            let matches: Bool
            if attribute.isServiceDeclaration, let asked = BluetoothUUID(littleEndian: value[...]),
               let have = BluetoothUUID(littleEndian: current[...]) {
                matches = asked == have
            } else {
                matches = current == value
            }
            guard matches else { continue }
            guard used + 4 <= mtu else { break }
            used += 4
            entries.append(AttributeHandlesInformation(found: attribute.handle, groupEnd: attribute.groupEnd))
        }
        if entries.isEmpty { return error(.findByTypeValueRequest, range.start, .attributeNotFound) }
        return .findByTypeValueResponse(entries)
    }

    private mutating func readByType(_ range: AttributeHandleRange, type: BluetoothUUID, mtu: Int) -> ATTPDU {
        var entries: [AttributeData] = []
        var used = 2
        // Each entry is length-prefixed by one byte: at most 253 value bytes.
        let maxValue = min(253, mtu - 4)
        for attribute in attributes(in: range) where attribute.type == type {
            guard attribute.permissions.contains(.read) else {
                // The first match decides the answer; later ones end the list.
                if entries.isEmpty { return error(.readByTypeRequest, attribute.handle, .readNotPermitted) }
                break
            }
            let value = Array(currentValue(attribute).prefix(maxValue))
            if let first = entries.first, first.value.count != value.count { break }
            guard used + 2 + value.count <= mtu else { break }
            used += 2 + value.count
            entries.append(AttributeData(handle: attribute.handle, value: value))
        }
        if entries.isEmpty { return error(.readByTypeRequest, range.start, .attributeNotFound) }
        if type == GATTUUID.databaseHash { serviceChangedConfirmed() }
        return .readByTypeResponse(entries)
    }

    private func readByGroupType(_ range: AttributeHandleRange, type: BluetoothUUID, mtu: Int) -> ATTPDU {
        var entries: [AttributeGroupData] = []
        var used = 2
        let maxValue = min(251, mtu - 6)
        for attribute in attributes(in: range) where attribute.type == type {
            let value = Array(attribute.value.prefix(maxValue))
            if let first = entries.first, first.value.count != value.count { break }
            guard used + 4 + value.count <= mtu else { break }
            used += 4 + value.count
            entries.append(AttributeGroupData(handle: attribute.handle, groupEnd: attribute.groupEnd, value: value))
        }
        if entries.isEmpty { return error(.readByGroupTypeRequest, range.start, .attributeNotFound) }
        return .readByGroupTypeResponse(entries)
    }

    // MARK: writing

    /// What a valid write changes, checked but not yet applied.
    private enum Change {
        case clientConfiguration(AttributeHandle, ClientConfiguration)
        case clientFeatures(ClientSupportedFeatures)
        case handOver(GATTServerWrite)
    }

    /// Applies a write; nil when it succeeded, else the error to answer.
    private mutating func write(_ value: [UInt8], at handle: AttributeHandle) -> ATTErrorCode? {
        switch check(value, at: handle) {
        case .failure(let code): return code
        case .success(let change):
            apply(change)
            return nil
        }
    }

    /// Whether `value` may be written at `handle` now, and what it would
    /// change. Changes nothing, so a queue can be checked whole first.
    private func check(_ value: [UInt8], at handle: AttributeHandle) -> Result<Change, ATTErrorCode> {
        guard let attribute = database.attribute(at: handle) else { return .failure(.invalidHandle) }
        guard attribute.permissions.contains(.write) else { return .failure(.writeNotPermitted) }
        if let refusal = securityRefusal(attribute) { return .failure(refusal) }
        switch attribute.kind {
        case .clientConfiguration(let allowed):
            guard value.count == 2 else { return .failure(.invalidAttributeValueLength) }
            let requested = ClientConfiguration(rawValue: UInt16(value[0]) | UInt16(value[1]) << 8)
            // Bits 2-15 are reserved: ignore them. Asking for a kind of
            // update the characteristic does not send is not allowed.
            let known = requested.intersection([.notification, .indication])
            guard allowed.isSuperset(of: known) else { return .failure(.valueNotAllowed) }
            return .success(.clientConfiguration(handle, known))
        case .clientSupportedFeatures:
            guard !value.isEmpty else { return .failure(.invalidAttributeValueLength) }
            let requested = ClientSupportedFeatures(rawValue: value[0]).intersection(supportedFeatures)
            // A client may not clear a feature it enabled (Core Vol 3 Part G 7.2).
            guard requested.isSuperset(of: clientFeatures) else { return .failure(.valueNotAllowed) }
            return .success(.clientFeatures(requested))
        case .stored:
            // A characteristic value some layer consumes (write permission
            // was checked above): handed over, not kept in the shared database.
            guard value.count <= GATTServer.maxAttributeValueLength else { return .failure(.invalidAttributeValueLength) }
            return .success(.handOver(GATTServerWrite(handle: handle, value: value)))
        case .databaseHash, .service:
            return .failure(.writeNotPermitted)
        }
    }

    private mutating func apply(_ change: Change) {
        switch change {
        case let .clientConfiguration(handle, value):
            setClientConfiguration(value, at: handle)
        case .clientFeatures(let features):
            clientFeatures = features
        case .handOver(let write):
            writes.append(write)
        }
    }

    // MARK: prepared (long) writes (Core Vol 3 Part F 3.4.6)

    /// Queues one part; the response echoes it so the client can check it.
    /// Permissions are checked now, offsets and lengths at execution.
    private mutating func prepare(_ value: [UInt8], at handle: AttributeHandle, offset: Int) -> ATTPDU {
        guard let attribute = database.attribute(at: handle) else { return error(.prepareWriteRequest, handle, .invalidHandle) }
        guard attribute.permissions.contains(.write) else { return error(.prepareWriteRequest, handle, .writeNotPermitted) }
        if let refusal = securityRefusal(attribute) { return error(.prepareWriteRequest, handle, refusal) }
        guard prepareQueue.count < GATTServer.prepareQueueLimit,
              preparedBytes + value.count <= GATTServer.prepareQueueBytes else {
            Log.info("gatt", "prepare queue full (\(prepareQueue.count) writes, \(preparedBytes) bytes)")
            return error(.prepareWriteRequest, handle, .prepareQueueFull)
        }
        prepareQueue.append((handle: handle, offset: offset, value: value))
        preparedBytes += value.count
        return .prepareWriteResponse(handle, offset: UInt16(offset), value: value)
    }

    /// Writes (flags 0x01) or cancels (0x00) everything prepared, all or
    /// nothing (Core Vol 3 Part F 3.4.6.3): each attribute's parts must
    /// follow on from what came before, and each assembled value must be
    /// one its attribute takes now (permissions, encryption, length, CCCD
    /// bits). The first that fails is answered with its handle, and no
    /// value of the queue is written.
    private mutating func execute(flags: UInt8) -> ATTPDU {
        guard flags <= 0x01 else { return error(.executeWriteRequest, .invalid, .invalidPDU) }
        let queue = prepareQueue
        prepareQueue = []
        preparedBytes = 0
        guard flags == 0x01 else { return .executeWriteResponse }
        var values: [(handle: AttributeHandle, value: [UInt8])] = []
        for part in queue {
            let index: Int
            if let found = values.firstIndex(where: { $0.handle == part.handle }) {
                index = found
            } else {
                values.append((handle: part.handle, value: []))
                index = values.count - 1
            }
            var value = values[index].value
            guard part.offset <= value.count else {
                Log.info("gatt", "prepared write to \(part.handle) at offset \(part.offset) leaves a gap after \(value.count) bytes")
                return error(.executeWriteRequest, part.handle, .invalidOffset)
            }
            let end = part.offset + part.value.count
            guard end <= GATTServer.maxAttributeValueLength else {
                return error(.executeWriteRequest, part.handle, .invalidAttributeValueLength)
            }
            if end > value.count { value += [UInt8](repeating: 0, count: end - value.count) }
            value.replaceSubrange(part.offset..<end, with: part.value)
            values[index].value = value
        }
        var changes: [Change] = []
        for (handle, value) in values {
            switch check(value, at: handle) {
            case .failure(let code):
                Log.info("gatt", "prepared write to \(handle) refused (\(code)): nothing of the queue written")
                return error(.executeWriteRequest, handle, code)
            case .success(let change):
                changes.append(change)
            }
        }
        for change in changes { apply(change) }
        return .executeWriteResponse
    }
}
