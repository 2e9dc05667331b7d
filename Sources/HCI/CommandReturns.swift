import BluetoothCore

// The return parameters of the commands the host sends (Core Vol 4 Part E 7),
// after the status byte. Longer replies are accepted (later versions of
// the specification append fields); shorter ones are not.

/// Commands whose Command Complete carries only the status.
public struct StatusOnly: CommandReturn, Equatable {
    public init() {}
    public init?(returnParameters reader: inout ByteReader) {}
}

/// Read Local Version Information (7.4.1).
public struct LocalVersionInformation: Equatable {
    public var hciVersion: UInt8
    public var hciSubversion: UInt16
    public var lmpVersion: UInt8
    public var manufacturer: UInt16
    public var lmpSubversion: UInt16
}

extension LocalVersionInformation: CommandReturn {
    public init?(returnParameters r: inout ByteReader) {
        guard let hciVersion = r.u8(), let hciSubversion = r.u16(), let lmpVersion = r.u8(),
              let manufacturer = r.u16(), let lmpSubversion = r.u16() else { return nil }
        (self.hciVersion, self.hciSubversion, self.lmpVersion) = (hciVersion, hciSubversion, lmpVersion)
        (self.manufacturer, self.lmpSubversion) = (manufacturer, lmpSubversion)
    }
}

/// Read BD_ADDR (7.4.6): the controller's public address.
public struct ReadBDAddrResult: Equatable {
    public var address: BluetoothAddress
}

extension ReadBDAddrResult: CommandReturn {
    public init?(returnParameters r: inout ByteReader) {
        guard let bytes = r.bytes(6), let address = BluetoothAddress(littleEndian: bytes, kind: .public) else { return nil }
        self.address = address
    }
}

/// Read Local Supported Commands (7.4.2): the 64-octet bit mask.
public struct SupportedCommandsResult: Equatable {
    public var mask: [UInt8]
}

extension SupportedCommandsResult: CommandReturn {
    public init?(returnParameters r: inout ByteReader) {
        guard let mask = r.array(64) else { return nil }
        self.mask = mask
    }
}

/// Read Local Supported Features (7.4.3) and LE Read Local Supported
/// Features (7.8.3): an 8-octet feature mask.
public struct FeaturesResult: Equatable {
    public var features: UInt64
}

extension FeaturesResult: CommandReturn {
    public init?(returnParameters r: inout ByteReader) {
        guard let features = r.u64() else { return nil }
        self.features = features
    }
}

/// Read Buffer Size (7.4.5): the ACL buffers BR/EDR and LE share when the
/// controller has none reserved for LE.
public struct ReadBufferSizeResult: Equatable {
    public var aclDataLength: UInt16
    public var synchronousDataLength: UInt8
    public var aclPacketCount: UInt16
    public var synchronousPacketCount: UInt16
}

extension ReadBufferSizeResult: CommandReturn {
    public init?(returnParameters r: inout ByteReader) {
        guard let aclLength = r.u16(), let syncLength = r.u8(), let aclCount = r.u16(), let syncCount = r.u16() else { return nil }
        (aclDataLength, synchronousDataLength, aclPacketCount, synchronousPacketCount) = (aclLength, syncLength, aclCount, syncCount)
    }
}

/// LE Read Buffer Size v1 and v2 (7.8.2): the LE ACL buffers; zeros mean
/// LE uses the shared ones. v2 appends the ISO buffers, which we do not use.
public struct LEReadBufferSizeResult: Equatable {
    public var aclDataLength: UInt16
    public var aclPacketCount: UInt8

    /// False when LE shares the BR/EDR buffers (Read Buffer Size tells them).
    public var hasLEBuffers: Bool { aclDataLength > 0 && aclPacketCount > 0 }
}

extension LEReadBufferSizeResult: CommandReturn {
    public init?(returnParameters r: inout ByteReader) {
        guard let length = r.u16(), let count = r.u8() else { return nil }
        (aclDataLength, aclPacketCount) = (length, count)
    }
}

/// Read Encryption Key Size (7.5.7): the key size of an encrypted link, in octets.
public struct ReadEncryptionKeySizeResult: Equatable {
    public var handle: ConnectionHandle
    public var keySize: UInt8
}

extension ReadEncryptionKeySizeResult: CommandReturn {
    public init?(returnParameters r: inout ByteReader) {
        guard let handle = r.u16(), let keySize = r.u8() else { return nil }
        self.handle = ConnectionHandle(handle)
        self.keySize = keySize
    }
}

/// LE Read Filter Accept List Size (7.8.14), LE Read Resolving List Size
/// (7.8.41), LE Read Number of Supported Advertising Sets (7.8.58): one
/// octet, how many the controller holds.
public struct CountResult: Equatable {
    public var count: UInt8
}

extension CountResult: CommandReturn {
    public init?(returnParameters r: inout ByteReader) {
        guard let count = r.u8() else { return nil }
        self.count = count
    }
}
