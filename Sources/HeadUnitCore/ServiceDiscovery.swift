import ATT
import BluetoothCore
import GATT

/// The handles of one characteristic found on the phone.
struct CharacteristicHandles {
    var value: AttributeHandle
    /// Client Characteristic Configuration, when it has one.
    var cccd: AttributeHandle?
}

/// Finds a service on the phone and the value and CCCD handles of each of its
/// characteristics: the one discovery walk every service client here needs.
enum ServiceDiscovery {
    enum Outcome {
        case found([BluetoothUUID: CharacteristicHandles])
        /// The phone has no such service (or it is empty).
        case absent
        case failed(GATTError)
    }

    static func discover(_ service: BluetoothUUID, on bearer: GATTBearer, _ done: @escaping (Outcome) -> Void) {
        bearer.discoverPrimaryServices(uuid: service) { result in
            switch result {
            case .failure(let error):
                if error.attErrorCode == .attributeNotFound { done(.absent) } else { done(.failed(error)) }
            case .success(let services):
                guard let found = services.first else {
                    done(.absent)
                    return
                }
                bearer.discoverCharacteristics(of: found) { result in
                    switch result {
                    case .failure(let error):
                        if error.attErrorCode == .attributeNotFound { done(.absent) } else { done(.failed(error)) }
                    case .success(let characteristics):
                        collectDescriptors(characteristics[...], on: bearer, into: [:], done)
                    }
                }
            }
        }
    }

    /// Asks for the descriptors of each characteristic that can notify or
    /// indicate, one after the other (the bearer runs one request at a time).
    private static func collectDescriptors(_ remaining: ArraySlice<GATTCharacteristic>, on bearer: GATTBearer,
                                           into handles: [BluetoothUUID: CharacteristicHandles],
                                           _ done: @escaping (Outcome) -> Void) {
        guard let next = remaining.first else {
            done(handles.isEmpty ? .absent : .found(handles))
            return
        }
        var handles = handles
        handles[next.uuid] = CharacteristicHandles(value: next.valueHandle, cccd: nil)
        let rest = remaining.dropFirst()
        guard next.properties.contains(.notify) || next.properties.contains(.indicate), next.descriptorRange != nil else {
            collectDescriptors(rest, on: bearer, into: handles, done)
            return
        }
        bearer.discoverDescriptors(of: next) { result in
            if case .success(let descriptors) = result {
                handles[next.uuid]?.cccd = descriptors.first { $0.uuid == GATTUUID.clientCharacteristicConfiguration }?.handle
            }
            collectDescriptors(rest, on: bearer, into: handles, done)
        }
    }
}
