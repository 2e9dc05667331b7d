import BluetoothCore

/// The Apple Media Service on the phone (docs/PROTOCOL.md §3).
public enum AMSUUIDs {
    public static let service = BluetoothUUID(high: 0x89D3_502B_0F36_433A, low: 0x8EF4_C502_AD55_F8DC)
    public static let remoteCommand = BluetoothUUID(high: 0x9B3C_81D8_57B1_4A8A, low: 0xB8DF_0E56_F7CA_51C2)
    public static let entityUpdate = BluetoothUUID(high: 0x2F7C_ABCE_808D_411F, low: 0x9A0C_BB92_BA96_C102)
    public static let entityAttribute = BluetoothUUID(high: 0xC6B2_F38C_23AB_46D8, low: 0xA6AB_A3A8_70BB_D5D7)
}

/// The three AMS characteristics, by role; the owner keeps their handles.
public enum AMSCharacteristic: CaseIterable, Hashable, CustomStringConvertible {
    /// Write a RemoteCommandID; notifies the list of supported commands.
    case remoteCommand
    /// Write an EntityID and AttributeIDs to register; notifies updates.
    case entityUpdate
    /// Write EntityID + AttributeID, then read the full value.
    case entityAttribute

    public var uuid: BluetoothUUID {
        switch self {
        case .remoteCommand: return AMSUUIDs.remoteCommand
        case .entityUpdate: return AMSUUIDs.entityUpdate
        case .entityAttribute: return AMSUUIDs.entityAttribute
        }
    }

    public init?(uuid: BluetoothUUID) {
        switch uuid {
        case AMSUUIDs.remoteCommand: self = .remoteCommand
        case AMSUUIDs.entityUpdate: self = .entityUpdate
        case AMSUUIDs.entityAttribute: self = .entityAttribute
        default: return nil
        }
    }

    public var description: String {
        switch self {
        case .remoteCommand: return "Remote Command"
        case .entityUpdate: return "Entity Update"
        case .entityAttribute: return "Entity Attribute"
        }
    }
}

/// The owner's answer to `AMSAction.discover`.
public enum AMSDiscovery: Equatable {
    case found(Set<AMSCharacteristic>)
    case absent
    case failed
}

/// AMS errors on a write.
public enum AMSErrorCode {
    /// The Media Source is not in a state to handle the command (no player).
    public static let invalidState: UInt8 = 0xA0
    public static let invalidCommand: UInt8 = 0xA1
    /// The attribute asked for in Entity Attribute is empty or unknown.
    public static let absentAttribute: UInt8 = 0xA2
}
