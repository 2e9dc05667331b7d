import BluetoothCore

/// A legacy advertising interval, in the controller's 0.625 ms units
/// (Core Vol 4 Part E 7.8.5: 0x0020..0x4000, 20 ms..10.24 s).
public struct AdvertisingInterval: Hashable, CustomStringConvertible {
    public let units: UInt16

    public init(units: UInt16) { self.units = units }

    /// Apple's Accessory Design Guidelines: 20 ms for the first 30 s, so
    /// iOS finds a new accessory at once.
    public static let fast = AdvertisingInterval(units: 32)
    /// After the first 30 s: the shortest of Apple's longer intervals
    /// (152.5 ms; the others are 211.25, 318.75, 417.5, 546.25, 760, 852.5,
    /// 1022.5 and 1285 ms). The list trades discovery time for battery, and
    /// a head unit runs on the car's power: the shortest one lets a phone
    /// that scans in the background (reconnecting to its bond when the
    /// driver gets in) find us soonest, for about 1 % of the radio's time.
    public static let slow = AdvertisingInterval(units: 244)

    /// In microseconds (0.625 ms = 625 µs).
    public var microseconds: Int { Int(units) * 625 }

    public var description: String {
        let us = microseconds
        let fraction = us % 1000
        guard fraction != 0 else { return "\(us / 1000) ms" }
        var digits = "\(fraction + 1000)".dropFirst()
        while digits.last == "0" { digits = digits.dropLast() }
        return "\(us / 1000).\(digits) ms"
    }
}

/// Whose scan and connection requests the advertiser accepts (7.8.5).
public enum AdvertisingFilterPolicy: UInt8 {
    case anyone = 0x00
    /// Scan requests from anyone (the name stays visible), connection
    /// requests only from devices on the filter accept list.
    case connectionsFromAcceptList = 0x02
}

/// The address we present on air (Own_Address_Type, 7.8.5).
public enum OwnAddressType: UInt8 {
    case `public` = 0x00
    case random = 0x01
}

extension HCICommand {
    /// Connectable undirected (ADV_IND) advertising on all three channels.
    public static func leSetAdvertisingParameters(interval: AdvertisingInterval, ownAddressType: OwnAddressType,
                                                  filterPolicy: AdvertisingFilterPolicy) -> HCICommand {
        var w = ByteWriter(capacity: 15)
        w.u16(interval.units) // min
        w.u16(interval.units) // max
        w.u8(0x00) // ADV_IND
        w.u8(ownAddressType.rawValue)
        w.u8(0) // peer address type and address: for directed advertising only
        w.append([UInt8](repeating: 0, count: 6))
        w.u8(0x07) // channels 37, 38 and 39
        w.u8(filterPolicy.rawValue)
        return HCICommand(.leSetAdvertisingParameters, w.bytes)
    }

    /// The length, then the data padded to 31 octets (7.8.7).
    public static func leSetAdvertisingData(_ data: [UInt8]) -> HCICommand {
        HCICommand(.leSetAdvertisingData, paddedAdvertisingData(data))
    }

    public static func leSetScanResponseData(_ data: [UInt8]) -> HCICommand {
        HCICommand(.leSetScanResponseData, paddedAdvertisingData(data))
    }

    private static func paddedAdvertisingData(_ data: [UInt8]) -> [UInt8] {
        let significant = data.prefix(AdvertisingPayload.maxLength)
        var w = ByteWriter(capacity: 32)
        w.u8(UInt8(significant.count))
        w.append(Array(significant))
        w.append([UInt8](repeating: 0, count: AdvertisingPayload.maxLength - significant.count))
        return w.bytes
    }

    public static func leSetAdvertisingEnable(_ enable: Bool) -> HCICommand {
        HCICommand(.leSetAdvertisingEnable, [enable ? 1 : 0])
    }

    public static func leSetRandomAddress(_ address: StaticRandomAddress) -> HCICommand {
        HCICommand(.leSetRandomAddress, address.address.littleEndianBytes)
    }

    public static func leClearFilterAcceptList() -> HCICommand { HCICommand(.leClearFilterAcceptList) }

    /// Identity addresses go in as public (0) or random (1), 7.8.16.
    public static func leAddDeviceToFilterAcceptList(_ address: BluetoothAddress) -> HCICommand {
        HCICommand(.leAddDeviceToFilterAcceptList, [address.isRandom ? 1 : 0] + address.littleEndianBytes)
    }

    public static func leClearResolvingList() -> HCICommand { HCICommand(.leClearResolvingList) }

    /// A bonded peer's identity and IRK, and our own IRK (7.8.38). IRKs
    /// travel least significant octet first, as SMP distributes them.
    public static func leAddDeviceToResolvingList(_ identity: BluetoothAddress, peerIRK: [UInt8], localIRK: [UInt8]) -> HCICommand {
        var w = ByteWriter(capacity: 39)
        w.u8(identity.isRandom ? 1 : 0)
        w.append(identity.littleEndianBytes)
        w.append(peerIRK)
        w.append(localIRK)
        return HCICommand(.leAddDeviceToResolvingList, w.bytes)
    }

    public static func leSetAddressResolutionEnable(_ enable: Bool) -> HCICommand {
        HCICommand(.leSetAddressResolutionEnable, [enable ? 1 : 0])
    }

    /// Answers an LTK Request as peripheral with the bonded (or just
    /// generated) key, least significant octet first (7.8.25).
    public static func leLongTermKeyRequestReply(_ handle: ConnectionHandle, ltk: [UInt8]) -> HCICommand {
        var w = ByteWriter(capacity: 18)
        w.u16(handle.value)
        w.append(ltk)
        return HCICommand(.leLongTermKeyRequestReply, w.bytes)
    }

    /// No key for this peer: the controller refuses encryption (7.8.26).
    public static func leLongTermKeyRequestNegativeReply(_ handle: ConnectionHandle) -> HCICommand {
        var w = ByteWriter(); w.u16(handle.value)
        return HCICommand(.leLongTermKeyRequestNegativeReply, w.bytes)
    }
}

// MARK: - Advertising sets (LE Advertising Extensions), legacy PDUs only

extension HCIOpcode {
    public static let leSetAdvertisingSetRandomAddress = HCIOpcode(ogf: 0x08, ocf: 0x0035)
    public static let leSetExtendedAdvertisingParameters = HCIOpcode(ogf: 0x08, ocf: 0x0036)
    public static let leSetExtendedAdvertisingData = HCIOpcode(ogf: 0x08, ocf: 0x0037)
    public static let leSetExtendedScanResponseData = HCIOpcode(ogf: 0x08, ocf: 0x0038)
    public static let leSetExtendedAdvertisingEnable = HCIOpcode(ogf: 0x08, ocf: 0x0039)
}

/// An advertising set's handle (7.8.53: 0x00..0xEF).
public struct AdvertisingSetHandle: Hashable, CustomStringConvertible {
    public let value: UInt8
    public init(_ value: UInt8) { self.value = value }
    public var description: String { "set \(value)" }
}

extension ControllerInfo {
    /// The commands that run advertising sets: LE Set Advertising Set
    /// Random Address, Set Extended Advertising Parameters, Data, Scan
    /// Response Data and Enable, and Read Number of Supported Advertising
    /// Sets (Supported_Commands octet 36, bits 1–5 and 7).
    public var supportsAdvertisingSets: Bool {
        [.leSetAdvertisingSetRandomAddress, .leSetExtendedAdvertisingParameters, .leSetExtendedAdvertisingData,
         .leSetExtendedScanResponseData, .leSetExtendedAdvertisingEnable, .leReadNumberOfSupportedAdvertisingSets]
            .allSatisfy { supports($0) }
    }
}

extension HCICommand {
    public static func leSetAdvertisingSetRandomAddress(_ set: AdvertisingSetHandle, _ address: StaticRandomAddress) -> HCICommand {
        HCICommand(.leSetAdvertisingSetRandomAddress, [set.value] + address.address.littleEndianBytes)
    }

    /// A set that sends ADV_IND, exactly as legacy advertising does
    /// (7.8.53): Advertising_Event_Properties 0x0013 (connectable,
    /// scannable, legacy PDUs), all three channels, LE 1M. Legacy PDUs
    /// are what an iPhone's Settings scan and every legacy scanner hear.
    public static func leSetExtendedAdvertisingParameters(_ set: AdvertisingSetHandle, interval: AdvertisingInterval,
                                                          ownAddressType: OwnAddressType,
                                                          filterPolicy: AdvertisingFilterPolicy) -> HCICommand {
        var w = ByteWriter(capacity: 25)
        w.u8(set.value)
        w.u16(0x0013) // connectable | scannable | legacy PDUs: ADV_IND
        w.u24(UInt32(interval.units)) // primary interval min
        w.u24(UInt32(interval.units)) // and max
        w.u8(0x07) // channels 37, 38 and 39
        w.u8(ownAddressType.rawValue)
        w.u8(0) // peer address type and address: for directed advertising only
        w.append([UInt8](repeating: 0, count: 6))
        w.u8(filterPolicy.rawValue)
        w.u8(0x7F) // TX power: no preference
        w.u8(0x01) // primary PHY: LE 1M (the only one legacy PDUs use)
        w.u8(0) // secondary max skip: unused with legacy PDUs
        w.u8(0x01) // secondary PHY: unused with legacy PDUs
        w.u8(0) // advertising SID: unused with legacy PDUs
        w.u8(0) // no scan request notifications
        return HCICommand(.leSetExtendedAdvertisingParameters, w.bytes)
    }

    /// The whole of a legacy set's data in one operation (0x03: complete
    /// data; legacy PDUs take at most 31 octets and no fragments, 7.8.54).
    public static func leSetExtendedAdvertisingData(_ set: AdvertisingSetHandle, _ data: [UInt8]) -> HCICommand {
        HCICommand(.leSetExtendedAdvertisingData, setData(set, data))
    }

    public static func leSetExtendedScanResponseData(_ set: AdvertisingSetHandle, _ data: [UInt8]) -> HCICommand {
        HCICommand(.leSetExtendedScanResponseData, setData(set, data))
    }

    private static func setData(_ set: AdvertisingSetHandle, _ data: [UInt8]) -> [UInt8] {
        let significant = Array(data.prefix(AdvertisingPayload.maxLength))
        var w = ByteWriter(capacity: 4 + significant.count)
        w.u8(set.value)
        w.u8(0x03) // operation: complete data
        w.u8(0x01) // the controller should not fragment it
        w.u8(UInt8(significant.count))
        w.append(significant)
        return w.bytes
    }

    /// Enables `sets`, each with no duration and no event limit (7.8.56).
    public static func leEnableAdvertisingSets(_ sets: [AdvertisingSetHandle]) -> HCICommand {
        var w = ByteWriter(capacity: 2 + 4 * sets.count)
        w.u8(1)
        w.u8(UInt8(sets.count))
        for set in sets {
            w.u8(set.value)
            w.u16(0) // duration: until disabled
            w.u8(0) // no maximum number of events
        }
        return HCICommand(.leSetExtendedAdvertisingEnable, w.bytes)
    }

    /// Disables every advertising set (Enable 0 with Num_Sets 0, 7.8.56).
    public static func leDisableAllAdvertisingSets() -> HCICommand {
        HCICommand(.leSetExtendedAdvertisingEnable, [0, 0])
    }
}
