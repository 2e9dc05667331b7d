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
public enum GATTServiceDiscovery: Hashable {
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
/// Every operation returns a `GATTRequestID` and ends exactly once as the
/// bearer's `.completed(id, result)` event, as the bearer's own procedures
/// do: no clock, no I/O and no closures here.
///
/// The bearer's owner hands each `.completed` event to `handle(_:_:)`
/// first: the binding keeps the answers of its own discovery walk (true)
/// and passes the rest on (false). It names the characteristic whose
/// subscribed value arrived (`characteristic(notifiedAt:)`).
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
        case found(FoundCharacteristics)
        case absent
    }
    private var state = State.unknown

    /// An operation as asked for, kept while it waits for discovery.
    private enum Operation {
        case discover(GATTRequestID)
        case read(GATTRequestID, BluetoothUUID)
        case write(GATTRequestID, BluetoothUUID, [UInt8])
        case subscribe(GATTRequestID, BluetoothUUID)
        case unsubscribe(GATTRequestID, BluetoothUUID)

        var id: GATTRequestID {
            switch self {
            case .discover(let id), .read(let id, _), .write(let id, _, _), .subscribe(let id, _), .unsubscribe(let id, _): return id
            }
        }

        /// The characteristic it is on; nil for discover.
        var characteristic: BluetoothUUID? {
            switch self {
            case .discover: return nil
            case .read(_, let c), .write(_, let c, _), .subscribe(_, let c), .unsubscribe(_, let c): return c
            }
        }
    }
    private var waiting: [Operation] = []

    /// What the cache holds for an operation.
    private enum Lookup {
        case found(FoundCharacteristics)
        case absent
        case failed(GATTError)
    }

    /// The step of the discovery walk outstanding on the bearer.
    private enum Walk {
        case service(GATTRequestID)
        case characteristics(GATTRequestID)
        /// The descriptors of `current`; `rest` is still to look at.
        case descriptors(GATTRequestID, current: GATTCharacteristic, rest: ArraySlice<GATTCharacteristic>,
                         table: [BluetoothUUID: GATTCharacteristicHandles])

        var id: GATTRequestID {
            switch self {
            case .service(let id), .characteristics(let id), .descriptors(let id, _, _, _): return id
            }
        }
    }
    private var walk: Walk?

    /// The value handles subscribed to, by characteristic, from the moment
    /// the CCCD write is asked for (values may come before its answer).
    private var subscribed = SubscribedValues()
    /// CCCD writes under way: a failed one stops routing its values.
    private var subscribing: [GATTRequestID: AttributeHandle] = [:]

    public init(service: BluetoothUUID, bearer: GATTBearer) {
        self.service = service
        self.bearer = bearer
    }

    /// The handles found, once discovery succeeded.
    public var characteristics: [BluetoothUUID: GATTCharacteristicHandles]? {
        if case .found(let found) = state, !bearer.isClosed { return found.table }
        return nil
    }

    /// The characteristic of this service subscribed to at `valueHandle`,
    /// for routing a `.valueReceived` event; nil when it is not one.
    public func characteristic(notifiedAt valueHandle: AttributeHandle) -> BluetoothUUID? {
        subscribed[valueHandle]
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
    /// a discovery already under way. Completes with `.discovered`.
    @discardableResult
    public func discover() -> GATTRequestID {
        if case .discovering = state {} else { state = .unknown }
        return ask(.discover(bearer.makeRequestID()))
    }

    /// Reads the characteristic's value (any length): `.value`.
    @discardableResult
    public func read(_ characteristic: BluetoothUUID) -> GATTRequestID {
        ask(.read(bearer.makeRequestID(), characteristic))
    }

    /// Writes the value with a Write Request: `.written`.
    @discardableResult
    public func write(_ characteristic: BluetoothUUID, value: [UInt8]) -> GATTRequestID {
        ask(.write(bearer.makeRequestID(), characteristic, value))
    }

    /// Writes the characteristic's CCCD (notifications when it notifies,
    /// otherwise indications) and names it for its values from then on:
    /// `.written`.
    @discardableResult
    public func subscribe(_ characteristic: BluetoothUUID) -> GATTRequestID {
        ask(.subscribe(bearer.makeRequestID(), characteristic))
    }

    /// Stops naming the characteristic's values and clears its CCCD: `.written`.
    @discardableResult
    public func unsubscribe(_ characteristic: BluetoothUUID) -> GATTRequestID {
        ask(.unsubscribe(bearer.makeRequestID(), characteristic))
    }

    // MARK: the bearer's answers

    /// A request of this bearer ended. True when it was the binding's own
    /// (its discovery walk), which nobody else waits for.
    public func handle(_ id: GATTRequestID, _ result: GATTClientResult) -> Bool {
        if !subscribing.isEmpty, let valueHandle = subscribing.removeValue(forKey: id) {
            if result.error != nil { subscribed[valueHandle] = nil }
            return false
        }
        // Most answers are not the walk's: its id is compared where it
        // lies before the step is copied out.
        guard walk?.id == id, let step = walk else { return false }
        walk = nil
        switch (step, result) {
        case (.service, .services(let services)):
            guard let found = services.first else {
                finishDiscovery(.absent)
                break
            }
            walk = .characteristics(bearer.discoverCharacteristics(of: found))
        case (.characteristics, .characteristics(let characteristics)):
            collectDescriptors(characteristics[...], into: [:])
        case let (.descriptors(_, current, rest, table), .descriptors(descriptors)):
            var table = table
            let cccd = descriptors.first { $0.uuid == GATTUUID.clientCharacteristicConfiguration }?.handle
            table[current.uuid] = GATTCharacteristicHandles(value: current.valueHandle, cccd: cccd, properties: current.properties)
            collectDescriptors(rest, into: table)
        case let (.descriptors(_, current, rest, table), _):
            // The characteristic stays usable for reads and writes;
            // subscribing to it reports the missing descriptor.
            Log.info("gatt", "descriptors of \(current) not found: \(result.error ?? .malformedResponse(.findInformationResponse))")
            collectDescriptors(rest, into: table)
        case (_, .failure(let error)):
            finishDiscovery(error.attErrorCode == .attributeNotFound ? .absent : .failed(error))
        default:
            Log.warning("gatt", "discovering \(service): \(result) answers nothing asked")
            finishDiscovery(.failed(.invalidArgument))
        }
        return true
    }

    // MARK: the cache

    private func ask(_ operation: Operation) -> GATTRequestID {
        if bearer.isClosed {
            state = .unknown
            run(operation, .failed(.bearerClosed))
            return operation.id
        }
        switch state {
        case .found(let found):
            run(operation, .found(found))
        case .absent:
            run(operation, .absent)
        case .discovering:
            waiting.append(operation)
        case .unknown:
            waiting.append(operation)
            startDiscovery()
        }
        return operation.id
    }

    /// Carries out an operation with what the cache holds; a missing
    /// service or characteristic is Attribute Not Found.
    private func run(_ operation: Operation, _ lookup: Lookup) {
        let id = operation.id
        guard let characteristic = operation.characteristic else {
            switch lookup {
            case .found(let found): bearer.complete(id, .discovered(.found(Set(found.uuids))))
            case .absent: bearer.complete(id, .discovered(.absent))
            case .failed(let error): bearer.complete(id, .discovered(.failed(error)))
            }
            return
        }
        let h: GATTCharacteristicHandles
        switch lookup {
        case .found(let found):
            guard let handles = found[characteristic] else {
                Log.info("gatt", "\(service) has no characteristic \(characteristic)")
                return bearer.complete(id, GATTServiceBinding.notFound)
            }
            h = handles
        case .absent:
            return bearer.complete(id, GATTServiceBinding.notFound)
        case .failed(let error):
            return bearer.complete(id, .failure(error))
        }
        switch operation {
        case .discover:
            break
        case .read:
            bearer.read(h.value, id: id)
        case .write(_, _, let value):
            bearer.write(h.value, value: value, id: id)
        case .subscribe:
            guard let cccd = h.cccd else {
                Log.warning("gatt", "\(characteristic) of \(service) has no client configuration descriptor; cannot subscribe")
                return bearer.complete(id, GATTServiceBinding.notFound)
            }
            subscribed[h.value] = characteristic
            subscribing[id] = h.value
            let indications = !h.properties.contains(.notify) && h.properties.contains(.indicate)
            bearer.subscribe(cccd: cccd, indications: indications, id: id)
        case .unsubscribe:
            guard let cccd = h.cccd else {
                Log.warning("gatt", "\(characteristic) of \(service) has no client configuration descriptor; cannot unsubscribe")
                return bearer.complete(id, GATTServiceBinding.notFound)
            }
            subscribed[h.value] = nil
            bearer.unsubscribe(cccd: cccd, id: id)
        }
    }

    private static let notFound = GATTClientResult.failure(.att(.attributeNotFound, handle: .invalid))

    private func startDiscovery() {
        state = .discovering(stale: false)
        walk = .service(bearer.discoverPrimaryServices(uuid: service))
    }

    /// Asks for the descriptors of each characteristic that can notify or
    /// indicate, one after the other (the bearer runs one request at a time).
    private func collectDescriptors(_ remaining: ArraySlice<GATTCharacteristic>,
                                    into table: [BluetoothUUID: GATTCharacteristicHandles]) {
        var table = table
        var remaining = remaining
        while let next = remaining.popFirst() {
            table[next.uuid] = GATTCharacteristicHandles(value: next.valueHandle, cccd: nil, properties: next.properties)
            if next.properties.contains(.notify) || next.properties.contains(.indicate), next.descriptorRange != nil {
                walk = .descriptors(bearer.discoverDescriptors(of: next), current: next, rest: remaining, table: table)
                return
            }
        }
        finishDiscovery(table.isEmpty ? .absent : .found(FoundCharacteristics(table)))
    }

    private func finishDiscovery(_ lookup: Lookup) {
        if case .discovering(stale: true) = state, !bearer.isClosed {
            // The database changed while we looked: what was found may be
            // wrong. Look again for everyone still waiting.
            startDiscovery()
            return
        }
        switch lookup {
        case .found(let found):
            state = .found(found)
        case .absent:
            Log.debug("gatt", "no \(service) on the peer")
            state = .absent
        case .failed(let error):
            Log.info("gatt", "discovering \(service) failed: \(error)")
            // Not kept: the next operation tries again.
            state = .unknown
        }
        let operations = waiting
        waiting = []
        for operation in operations { run(operation, lookup) }
    }
}

/// The characteristics discovery found, as two short arrays: every
/// operation looks its characteristic up here, a scan of a few UUIDs where
/// a dictionary hashed the UUID (some 130 instructions a write).
private struct FoundCharacteristics {
    let uuids: [BluetoothUUID]
    let handles: [GATTCharacteristicHandles]

    init(_ table: [BluetoothUUID: GATTCharacteristicHandles]) {
        uuids = Array(table.keys)
        handles = uuids.map { table[$0].unsafelyUnwrapped }
    }

    subscript(characteristic: BluetoothUUID) -> GATTCharacteristicHandles? {
        guard let i = uuids.firstIndex(of: characteristic) else { return nil }
        return handles[i]
    }

    var table: [BluetoothUUID: GATTCharacteristicHandles] {
        var table: [BluetoothUUID: GATTCharacteristicHandles] = [:]
        for (uuid, h) in zip(uuids, handles) { table[uuid] = h }
        return table
    }
}

/// The value handles a binding subscribed to, with their characteristics.
/// A service has a few, and every value the peer notifies is looked up
/// here: a scan of a short array, where a dictionary hashed the handle.
private struct SubscribedValues {
    private var handles: [AttributeHandle] = []
    private var characteristics: [BluetoothUUID] = []

    subscript(valueHandle: AttributeHandle) -> BluetoothUUID? {
        get {
            guard let i = handles.firstIndex(of: valueHandle) else { return nil }
            return characteristics[i]
        }
        set {
            let i = handles.firstIndex(of: valueHandle)
            switch (i, newValue) {
            case let (i?, characteristic?):
                characteristics[i] = characteristic
            case let (i?, nil):
                handles.remove(at: i)
                characteristics.remove(at: i)
            case let (nil, characteristic?):
                handles.append(valueHandle)
                characteristics.append(characteristic)
            case (nil, nil):
                break
            }
        }
    }
}
