import AMS
import ANCS
import BluetoothCore
import GATT

/// What a client of one of the phone's services learns from discovering
/// it, named by role: the characteristics it knows, or that the service is
/// absent, or that discovery failed. ANCS and AMS name theirs alike; the
/// mapping from what the bound service found is written once, here.
protocol ServiceDiscoveryOutcome {
    associatedtype Role: Hashable
    /// The role of a characteristic the service has; nil for one the client does not use.
    static func role(of uuid: BluetoothUUID) -> Role?
    static func found(_ roles: Set<Role>) -> Self
    static var absent: Self { get }
    static var failed: Self { get }
}

extension ServiceDiscoveryOutcome {
    /// What the bound service found, named by role.
    init(_ outcome: GATTServiceDiscovery) {
        switch outcome {
        case .found(let uuids): self = .found(Set(uuids.compactMap { Self.role(of: $0) }))
        case .absent: self = .absent
        case .failed: self = .failed
        }
    }

    /// What a bound service's discovery request ended with.
    init(_ result: GATTClientResult) {
        guard case .discovered(let outcome) = result else {
            self = .failed
            return
        }
        self.init(outcome)
    }
}

extension ANCSDiscovery: ServiceDiscoveryOutcome {
    static func role(of uuid: BluetoothUUID) -> ANCSCharacteristic? { ANCSCharacteristic(uuid: uuid) }
}

extension AMSDiscovery: ServiceDiscoveryOutcome {
    static func role(of uuid: BluetoothUUID) -> AMSCharacteristic? { AMSCharacteristic(uuid: uuid) }
}
