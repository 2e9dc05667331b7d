import ATT
import BluetoothCore

/// Where one characteristic of a peer service lives.
public struct GATTCharacteristicHandles: Hashable {
    public let value: AttributeHandle
    /// Client Characteristic Configuration, when it has one (looked for only
    /// on characteristics that notify or indicate).
    public let cccd: AttributeHandle?
    public let properties: CharacteristicProperties

    public init(value: AttributeHandle, cccd: AttributeHandle?, properties: CharacteristicProperties) {
        self.value = value
        self.cccd = cccd
        self.properties = properties
    }
}

/// How finding a peer service ended.
public enum GATTServiceDiscovery: Equatable {
    /// The service is there with these characteristics.
    case found(Set<BluetoothUUID>)
    /// The peer has no such service (or an empty one).
    case absent
    /// Discovery itself failed (ATT error, timeout, link gone).
    case failed(GATTError)
}

/// One service on the peer, bound to the GATT bearer of its link: found once
/// (the service, its characteristics, the CCCD of each one that notifies or
/// indicates), then read, written and subscribed to by characteristic UUID.
/// Every operation completes exactly once with a `RemoteOperationResult`,
/// inside the bearer call that finished it, as the bearer's own procedures
/// do: no clock and no I/O here.
///
/// An operation asked for before the service is known starts discovery and
/// waits for it; several wait for the same discovery. After that,
/// operations use the handles found until `discover` or `forget`. `forget()` (Service
/// Changed) drops what was found, so the next operation looks again. A
/// closed bearer (the link is gone) fails everything and forgets too.
public final class GATTServiceBinding {
    public let service: BluetoothUUID
    public let bearer: GATTBearer

    private enum State {
        case unknown
        /// `stale`: forgotten while discovery ran; its answer is not kept
        /// and discovery runs again for those still waiting.
        case discovering(stale: Bool)
        case found([BluetoothUUID: GATTCharacteristicHandles])
        case absent
    }
    private var state = State.unknown
    private var waiting: [(Lookup) -> Void] = []

    /// What the cache holds for an operation.
    private enum Lookup {
        case found([BluetoothUUID: GATTCharacteristicHandles])
        case absent
        case failed(GATTError)
    }

    public init(service: BluetoothUUID, bearer: GATTBearer) {
        self.service = service
        self.bearer = bearer
    }

    /// The handles found, once discovery succeeded.
    public var characteristics: [BluetoothUUID: GATTCharacteristicHandles]? {
        if case .found(let table) = state, !bearer.isClosed { return table }
        return nil
    }

    /// Drops the handles found: the peer's database changed (Service
    /// Changed). The next operation discovers the service again.
    public func forget() {
        switch state {
        case .discovering: state = .discovering(stale: true)
        case .unknown, .found, .absent: state = .unknown
        }
    }

    // MARK: operations

    /// Looks at the peer's service now, replacing what was found before (a
    /// client that asks to discover, after a failure say, means it); joins
    /// a discovery already under way.
    public func discover(_ done: @escaping (GATTServiceDiscovery) -> Void) {
        if case .discovering = state {} else { state = .unknown }
        lookUp { lookup in
            switch lookup {
            case .found(let table): done(.found(Set(table.keys)))
            case .absent: done(.absent)
            case .failed(let error): done(.failed(error))
            }
        }
    }

    /// Reads the characteristic's value (any length).
    public func read(_ characteristic: BluetoothUUID, _ done: @escaping (RemoteOperationResult) -> Void) {
        withHandles(of: characteristic, done) { bearer, h in
            bearer.read(h.value) { done(RemoteOperationResult($0)) }
        }
    }

    /// Writes the value with a Write Request.
    public func write(_ characteristic: BluetoothUUID, value: [UInt8], _ done: @escaping (RemoteOperationResult) -> Void) {
        withHandles(of: characteristic, done) { bearer, h in
            bearer.write(h.value, value: value) { done(RemoteOperationResult($0)) }
        }
    }

    /// Routes the characteristic's values to `onValue` and writes its CCCD:
    /// notifications when it notifies, otherwise indications.
    public func subscribe(_ characteristic: BluetoothUUID, onValue: @escaping ([UInt8]) -> Void,
                          _ done: @escaping (RemoteOperationResult) -> Void) {
        withHandles(of: characteristic, done) { [service] bearer, h in
            guard let cccd = h.cccd else {
                Log.warning("gatt", "\(characteristic) of \(service) has no client configuration descriptor; cannot subscribe")
                done(.attError(ATTErrorCode.attributeNotFound.rawValue))
                return
            }
            let indications = !h.properties.contains(.notify) && h.properties.contains(.indicate)
            bearer.subscribe(valueHandle: h.value, cccd: cccd, indications: indications, onValue: onValue) {
                done(RemoteOperationResult($0))
            }
        }
    }

    /// Stops routing the characteristic's values and clears its CCCD.
    public func unsubscribe(_ characteristic: BluetoothUUID, _ done: @escaping (RemoteOperationResult) -> Void) {
        withHandles(of: characteristic, done) { [service] bearer, h in
            guard let cccd = h.cccd else {
                Log.warning("gatt", "\(characteristic) of \(service) has no client configuration descriptor; cannot unsubscribe")
                done(.attError(ATTErrorCode.attributeNotFound.rawValue))
                return
            }
            bearer.unsubscribe(valueHandle: h.value, cccd: cccd) { done(RemoteOperationResult($0)) }
        }
    }

    // MARK: the cache

    /// Runs `body` with the characteristic's handles, discovering first if
    /// need be; a missing service or characteristic is Attribute Not Found.
    private func withHandles(of characteristic: BluetoothUUID, _ fail: @escaping (RemoteOperationResult) -> Void,
                             _ body: @escaping (GATTBearer, GATTCharacteristicHandles) -> Void) {
        lookUp { [service, bearer] lookup in
            switch lookup {
            case .found(let table):
                guard let h = table[characteristic] else {
                    Log.info("gatt", "\(service) has no characteristic \(characteristic)")
                    fail(.attError(ATTErrorCode.attributeNotFound.rawValue))
                    return
                }
                body(bearer, h)
            case .absent:
                fail(.attError(ATTErrorCode.attributeNotFound.rawValue))
            case .failed(let error):
                fail(RemoteOperationResult(error))
            }
        }
    }

    private func lookUp(_ done: @escaping (Lookup) -> Void) {
        if bearer.isClosed {
            state = .unknown
            done(.failed(.bearerClosed))
            return
        }
        switch state {
        case .found(let table):
            done(.found(table))
        case .absent:
            done(.absent)
        case .discovering:
            waiting.append(done)
        case .unknown:
            waiting.append(done)
            startDiscovery()
        }
    }

    private func startDiscovery() {
        state = .discovering(stale: false)
        // The bearer's queue holds these closures, and with them this
        // binding, only until the procedure completes or the bearer closes.
        bearer.discoverPrimaryServices(uuid: service) { result in
            switch result {
            case .failure(let error):
                self.finishDiscovery(error.attErrorCode == .attributeNotFound ? .absent : .failed(error))
            case .success(let services):
                guard let found = services.first else { return self.finishDiscovery(.absent) }
                self.bearer.discoverCharacteristics(of: found) { result in
                    switch result {
                    case .failure(let error):
                        self.finishDiscovery(error.attErrorCode == .attributeNotFound ? .absent : .failed(error))
                    case .success(let characteristics):
                        self.collectDescriptors(characteristics[...], into: [:])
                    }
                }
            }
        }
    }

    /// Asks for the descriptors of each characteristic that can notify or
    /// indicate, one after the other (the bearer runs one request at a time).
    private func collectDescriptors(_ remaining: ArraySlice<GATTCharacteristic>,
                                    into table: [BluetoothUUID: GATTCharacteristicHandles]) {
        guard let next = remaining.first else {
            finishDiscovery(table.isEmpty ? .absent : .found(table))
            return
        }
        let rest = remaining.dropFirst()
        var table = table
        table[next.uuid] = GATTCharacteristicHandles(value: next.valueHandle, cccd: nil, properties: next.properties)
        guard next.properties.contains(.notify) || next.properties.contains(.indicate), next.descriptorRange != nil else {
            collectDescriptors(rest, into: table)
            return
        }
        bearer.discoverDescriptors(of: next) { result in
            switch result {
            case .success(let descriptors):
                let cccd = descriptors.first { $0.uuid == GATTUUID.clientCharacteristicConfiguration }?.handle
                table[next.uuid] = GATTCharacteristicHandles(value: next.valueHandle, cccd: cccd, properties: next.properties)
            case .failure(let error):
                // The characteristic stays usable for reads and writes;
                // subscribing to it reports the missing descriptor.
                Log.info("gatt", "descriptors of \(next) not found: \(error)")
            }
            self.collectDescriptors(rest, into: table)
        }
    }

    private func finishDiscovery(_ lookup: Lookup) {
        if case .discovering(stale: true) = state, !bearer.isClosed {
            // The database changed while we looked: what was found may be
            // wrong. Look again for everyone still waiting.
            startDiscovery()
            return
        }
        switch lookup {
        case .found(let table):
            state = .found(table)
        case .absent:
            Log.debug("gatt", "no \(service) on the peer")
            state = .absent
        case .failed(let error):
            Log.info("gatt", "discovering \(service) failed: \(error)")
            // Not kept: the next operation tries again.
            state = .unknown
        }
        let callbacks = waiting
        waiting = []
        for callback in callbacks { callback(lookup) }
    }
}
