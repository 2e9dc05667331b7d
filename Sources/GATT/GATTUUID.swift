import BluetoothCore

/// Attribute types and services from the Bluetooth Assigned Numbers that the
/// GATT client and server use.
public enum GATTUUID {
    public static let primaryService = BluetoothUUID(0x2800)
    public static let secondaryService = BluetoothUUID(0x2801)
    public static let include = BluetoothUUID(0x2802)
    public static let characteristic = BluetoothUUID(0x2803)

    public static let characteristicExtendedProperties = BluetoothUUID(0x2900)
    public static let characteristicUserDescription = BluetoothUUID(0x2901)
    public static let clientCharacteristicConfiguration = BluetoothUUID(0x2902)
    public static let serverCharacteristicConfiguration = BluetoothUUID(0x2903)
    public static let characteristicPresentationFormat = BluetoothUUID(0x2904)
    public static let characteristicAggregateFormat = BluetoothUUID(0x2905)

    public static let genericAccessService = BluetoothUUID(0x1800)
    public static let genericAttributeService = BluetoothUUID(0x1801)
    public static let deviceName = BluetoothUUID(0x2A00)
    public static let appearance = BluetoothUUID(0x2A01)
    public static let serviceChanged = BluetoothUUID(0x2A05)
    public static let clientSupportedFeatures = BluetoothUUID(0x2B29)
    public static let databaseHash = BluetoothUUID(0x2B2A)

    /// Descriptor types whose declarations (but not values) enter the
    /// Database Hash (Core Vol 3 Part G 7.3.1).
    static let hashedDescriptors: [BluetoothUUID] = [
        characteristicExtendedProperties, characteristicUserDescription, clientCharacteristicConfiguration,
        serverCharacteristicConfiguration, characteristicPresentationFormat, characteristicAggregateFormat,
    ]
}
