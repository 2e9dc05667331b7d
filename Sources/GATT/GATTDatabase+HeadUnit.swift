import ATT
import BluetoothCore

/// GAP Appearance values (Bluetooth Assigned Numbers 2.6: category << 6 | subcategory).
public enum Appearance {
    public static let unknown: UInt16 = 0x0000
    /// Category 0x023 Motorized Vehicle, subcategory 0x01 Car: the head unit
    /// is part of the car.
    public static let car: UInt16 = 0x023 << 6 | 0x01
}

extension GATTDatabase {
    /// The head unit's own database: GAP (Device Name, Appearance) and GATT
    /// (Service Changed with its CCCD, Client Supported Features, and
    /// Database Hash when AES-CMAC is given). Nothing else is exposed.
    public convenience init(deviceName: String, appearance: UInt16 = Appearance.car,
                            aesCMAC: ((_ key: [UInt8], _ message: [UInt8]) -> [UInt8])? = nil) {
        self.init(aesCMAC: aesCMAC)
        addService(GATTUUID.genericAccessService)
        addCharacteristic(GATTUUID.deviceName, properties: .read, permissions: .read,
                          value: GATTDatabase.deviceNameValue(deviceName))
        addCharacteristic(GATTUUID.appearance, properties: .read, permissions: .read,
                          value: [UInt8(truncatingIfNeeded: appearance), UInt8(truncatingIfNeeded: appearance >> 8)])
        addService(GATTUUID.genericAttributeService)
        // Service Changed is indicate-only: its value cannot be read.
        addCharacteristic(GATTUUID.serviceChanged, properties: .indicate, permissions: [])
        addCharacteristic(GATTUUID.clientSupportedFeatures, properties: [.read, .write], permissions: [.read, .write],
                          value: [], kind: .clientSupportedFeatures)
        if aesCMAC != nil {
            addCharacteristic(GATTUUID.databaseHash, properties: .read, permissions: .read, value: [], kind: .databaseHash)
        }
    }

    /// The first attribute of that type, e.g. `valueHandle(of: GATTUUID.deviceName)`.
    public func valueHandle(of type: BluetoothUUID) -> AttributeHandle? {
        attributes.first(where: { $0.type == type })?.handle
    }

    /// Changes the Device Name every connection reads.
    public func setDeviceName(_ name: String) {
        guard let handle = valueHandle(of: GATTUUID.deviceName) else { return }
        setValue(GATTDatabase.deviceNameValue(name), at: handle)
    }

    /// UTF-8, at most 248 bytes (Core Vol 3 Part C 12.1), cut on a character boundary.
    static func deviceNameValue(_ name: String) -> [UInt8] {
        var out: [UInt8] = []
        for character in name {
            let encoded = Array(String(character).utf8)
            guard out.count + encoded.count <= 248 else { break }
            out += encoded
        }
        return out
    }
}
