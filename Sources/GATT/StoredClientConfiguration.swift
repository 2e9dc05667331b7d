import BluetoothCore

/// One CCCD of a bonded client as kept across connections: the
/// characteristic it configures (by UUID) and the updates asked for.
public struct StoredClientConfiguration: Equatable {
    public let characteristic: BluetoothUUID
    public let value: ClientConfiguration

    public init(characteristic: BluetoothUUID, value: ClientConfiguration) {
        self.characteristic = characteristic
        self.value = value
    }
}

/// What the head unit's GATT server keeps for one bonded client (Core Vol 3
/// Part G 2.5.2 and 3.3.3.3): its CCCDs, and a fingerprint of the database
/// as the client last knew it, so that a changed database is told with
/// Service Changed when the client comes back.
public struct BondedClientState: Equatable {
    public var configurations: [StoredClientConfiguration]
    /// The Database Hash (Core Vol 3 Part G 7.3) of the database the client
    /// is aware of, 16 bytes.
    public var databaseHash: [UInt8]

    public init(configurations: [StoredClientConfiguration], databaseHash: [UInt8]) {
        self.configurations = configurations
        self.databaseHash = databaseHash
    }

    /// The client asked for Service Changed indications.
    public var wantsServiceChanged: Bool {
        configurations.contains { $0.characteristic == GATTUUID.serviceChanged && $0.value.contains(.indication) }
    }
}
