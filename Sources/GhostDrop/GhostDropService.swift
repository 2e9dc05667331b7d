import BluetoothCore

/// GhostDrop's GATT service (BLEUUIDs.swift of the reference). The receiver
/// advertises the service with its capabilities JSON as service data and
/// publishes an LE credit-based channel, encryption required, whose PSM
/// that JSON carries.
public enum GhostDropService {
    public static let service = BluetoothUUID("BFA6E968-0F36-4888-8F63-C8EC01385E67")!
    /// Notify, Write Without Response: data frames over GATT.
    public static let data = BluetoothUUID("A0F2FA1D-F0E6-43F3-8B8A-642D7E6A0603")!
    /// Notify, Write: control frames over GATT.
    public static let control = BluetoothUUID("A0F2FA1D-F0E6-43F3-8B8A-642D7E6A0604")!
    /// Read: `GhostJSON.advertisement(capabilities, psm:)`.
    public static let capabilities = BluetoothUUID("A0F2FA1D-F0E6-43F3-8B8A-642D7E6A0605")!
}
