import ATT
import BluetoothCore

/// Our GATT server's attributes, shared by every connection (a class, so a
/// new device name reaches every bearer). Handles are contiguous from 0x0001
/// in the order things are added; per-connection state (CCCDs, Client
/// Supported Features) lives in `GATTServer`.
public final class GATTDatabase {
    public private(set) var attributes: [GATTAttribute] = []
    /// AES-CMAC(key, message) -> 16 bytes, most significant first (as the
    /// Security Manager computes it). With it the database offers a Database
    /// Hash and robust caching; without it neither.
    let aesCMAC: ((_ key: [UInt8], _ message: [UInt8]) -> [UInt8])?
    private var cachedHash: [UInt8]? = nil

    public init(aesCMAC: ((_ key: [UInt8], _ message: [UInt8]) -> [UInt8])? = nil) {
        self.aesCMAC = aesCMAC
    }

    public var lastHandle: AttributeHandle { AttributeHandle(UInt16(truncatingIfNeeded: attributes.count)) }

    public func attribute(at handle: AttributeHandle) -> GATTAttribute? {
        let index = Int(handle.value) - 1
        guard index >= 0, index < attributes.count else { return nil }
        return attributes[index]
    }

    // MARK: building

    @discardableResult
    public func addService(_ uuid: BluetoothUUID, primary: Bool = true) -> AttributeHandle {
        append(primary ? GATTUUID.primaryService : GATTUUID.secondaryService, uuid.compactLittleEndian, [.read], .service(end: AttributeHandle(0)))
    }

    /// An Include declaration; the UUID appears in the value only when it is
    /// a 16-bit one (Core Vol 3 Part G 3.2).
    @discardableResult
    public func addInclude(service: AttributeHandleRange, uuid: BluetoothUUID) -> AttributeHandle {
        var w = ByteWriter()
        w.u16(service.start.value)
        w.u16(service.end.value)
        if uuid.shortValue != nil { w.append(uuid.compactLittleEndian) }
        return append(GATTUUID.include, w.bytes, [.read], .stored)
    }

    /// A characteristic declaration, its value and, for notify or indicate,
    /// its CCCD. Returns the value handle.
    @discardableResult
    public func addCharacteristic(_ uuid: BluetoothUUID, properties: CharacteristicProperties,
                                  permissions: AttributePermissions, value: [UInt8] = []) -> AttributeHandle {
        addCharacteristic(uuid, properties: properties, permissions: permissions, value: value, kind: .stored)
    }

    @discardableResult
    public func addDescriptor(_ uuid: BluetoothUUID, permissions: AttributePermissions, value: [UInt8] = []) -> AttributeHandle {
        append(uuid, value, permissions, .stored)
    }

    @discardableResult
    func addCharacteristic(_ uuid: BluetoothUUID, properties: CharacteristicProperties,
                           permissions: AttributePermissions, value: [UInt8], kind: GATTAttribute.Kind) -> AttributeHandle {
        let valueHandle = AttributeHandle(UInt16(truncatingIfNeeded: attributes.count + 2))
        var declaration = ByteWriter()
        declaration.u8(properties.rawValue)
        declaration.u16(valueHandle.value)
        declaration.append(uuid.compactLittleEndian)
        append(GATTUUID.characteristic, declaration.bytes, [.read], .stored)
        append(uuid, value, permissions, kind)
        var allowed: ClientConfiguration = []
        if properties.contains(.notify) { allowed.insert(.notification) }
        if properties.contains(.indicate) { allowed.insert(.indication) }
        if !allowed.isEmpty {
            append(GATTUUID.clientCharacteristicConfiguration, [], [.read, .write], .clientConfiguration(allowed: allowed))
        }
        return valueHandle
    }

    @discardableResult
    private func append(_ type: BluetoothUUID, _ value: [UInt8], _ permissions: AttributePermissions, _ kind: GATTAttribute.Kind) -> AttributeHandle {
        let handle = AttributeHandle(UInt16(truncatingIfNeeded: attributes.count + 1))
        attributes.append(GATTAttribute(handle: handle, type: type, value: value, permissions: permissions, kind: kind))
        // The open service's group grows with every attribute after it.
        if let serviceIndex = attributes.lastIndex(where: { $0.isServiceDeclaration }) {
            attributes[serviceIndex].kind = .service(end: handle)
        }
        cachedHash = nil
        return handle
    }

    /// Replaces a stored value (e.g. a new device name).
    public func setValue(_ value: [UInt8], at handle: AttributeHandle) {
        let index = Int(handle.value) - 1
        guard index >= 0, index < attributes.count else {
            Log.warning("gatt", "no attribute \(handle) to set")
            return
        }
        attributes[index].value = value
    }

    // MARK: Database Hash (Core Vol 3 Part G 7.3)

    /// The bytes the hash is computed over: handle, type and value of every
    /// service, include and characteristic declaration and of Characteristic
    /// Extended Properties; handle and type of the other standard
    /// descriptors; characteristic values are left out.
    public func databaseHashInput() -> [UInt8] {
        var w = ByteWriter(capacity: attributes.count * 8)
        for attribute in attributes {
            let type = attribute.type
            let declaration = type == GATTUUID.primaryService || type == GATTUUID.secondaryService
                || type == GATTUUID.include || type == GATTUUID.characteristic
            guard declaration || GATTUUID.hashedDescriptors.contains(type), let short = type.shortValue else { continue }
            w.u16(attribute.handle.value)
            w.u16(short)
            if declaration || type == GATTUUID.characteristicExtendedProperties { w.append(attribute.value) }
        }
        return w.bytes
    }

    /// The Database Hash as sent on the air (a uint128, little-endian), or
    /// nil without AES-CMAC.
    public var databaseHash: [UInt8]? {
        if let cachedHash { return cachedHash }
        guard let aesCMAC else { return nil }
        let mac = aesCMAC([UInt8](repeating: 0, count: 16), databaseHashInput())
        guard mac.count == 16 else {
            Log.error("gatt", "AES-CMAC returned \(mac.count) bytes; no Database Hash")
            return nil
        }
        cachedHash = mac.reversed()
        return cachedHash
    }
}
