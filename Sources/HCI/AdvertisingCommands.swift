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
