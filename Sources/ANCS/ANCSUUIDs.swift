import BluetoothCore

/// The Apple Notification Center Service on the phone (docs/PROTOCOL.md §2).
public enum ANCSUUIDs {
    public static let service = BluetoothUUID(high: 0x7905_F431_B5CE_4E99, low: 0xA40F_4B1E_122D_00D0)
    public static let notificationSource = BluetoothUUID(high: 0x9FBF_120D_6301_42D9, low: 0x8C58_25E6_99A2_1DBD)
    public static let controlPoint = BluetoothUUID(high: 0x69D1_D8F3_45E1_49A8, low: 0x9821_9BBD_FDAA_D9D9)
    public static let dataSource = BluetoothUUID(high: 0x22EA_C6E9_24D6_4BB5, low: 0xBE44_B36A_CE7C_7BFB)
}

/// The three ANCS characteristics, by role. The client names characteristics
/// only by role; its owner keeps the attribute handles it discovered and
/// routes notifications from those handles back to the right entry point.
public enum ANCSCharacteristic: CaseIterable, Hashable, CustomStringConvertible {
    case notificationSource
    case controlPoint
    case dataSource

    public var uuid: BluetoothUUID {
        switch self {
        case .notificationSource: return ANCSUUIDs.notificationSource
        case .controlPoint: return ANCSUUIDs.controlPoint
        case .dataSource: return ANCSUUIDs.dataSource
        }
    }

    public init?(uuid: BluetoothUUID) {
        switch uuid {
        case ANCSUUIDs.notificationSource: self = .notificationSource
        case ANCSUUIDs.controlPoint: self = .controlPoint
        case ANCSUUIDs.dataSource: self = .dataSource
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .notificationSource: return "Notification Source"
        case .controlPoint: return "Control Point"
        case .dataSource: return "Data Source"
        }
    }
}

/// The owner's answer to `ANCSAction.discover`.
public enum ANCSDiscovery: Equatable {
    /// The service is there with these characteristics (their CCCDs found).
    case found(Set<ANCSCharacteristic>)
    /// The phone does not publish ANCS (yet: iOS may add it after bonding,
    /// and announces that with Service Changed).
    case absent
    /// Discovery itself failed (ATT error, link trouble).
    case failed
}
