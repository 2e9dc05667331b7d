import BluetoothCore

/// The NotifBridge GATT service and its characteristics (docs/NOTIFBRIDGE.md).
public enum NotifBridgeUUIDs {
    public static let service = BluetoothUUID("D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C44")!
    /// Phone → head unit: key-exchange frames (Write, Write Without Response).
    public static let keyExchange = BluetoothUUID("D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C46")!
    /// Phone → head unit: NBW1-wrapped envelope frames (Write, Write Without Response).
    public static let notifications = BluetoothUUID("D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C47")!
    /// Head unit → phone: NBA1 acks, receipts and reverse frames (Indicate, Read, CCCD).
    public static let receipts = BluetoothUUID("D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C4B")!
}

/// The characteristic a value was written to.
public enum NotifBridgeCharacteristic: Hashable, CustomStringConvertible {
    case keyExchange
    case notifications

    public var description: String {
        switch self {
        case .keyExchange: return "key exchange"
        case .notifications: return "notifications"
        }
    }
}
