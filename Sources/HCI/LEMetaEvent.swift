import BluetoothCore

/// What LE (Enhanced) Connection Complete reports.
public struct LEConnectionComplete: Equatable {
    public var status: HCIStatus
    public var handle: ConnectionHandle
    public var role: LinkRole
    public var peer: BluetoothAddress
    /// In 1.25 ms units.
    public var interval: UInt16
    public var latency: UInt16
    /// In 10 ms units.
    public var supervisionTimeout: UInt16
    /// Enhanced Connection Complete only: the private address the peer used
    /// on air when the controller resolved it to the identity in `peer`.
    /// SMP needs it: pairing confirms the addresses of the connection.
    public var peerResolvablePrivateAddress: BluetoothAddress? = nil
}

/// One advertiser's report: legacy and extended reports both end up here.
public struct AdvertisingReport: Equatable {
    public enum Kind: Equatable {
        case connectableUndirected, connectableDirected, scannableUndirected, nonConnectable, scanResponse
    }

    public var kind: Kind
    public var address: BluetoothAddress
    public var rssi: Int8
    public var data: [UInt8]

    public var isConnectable: Bool { kind == .connectableUndirected || kind == .connectableDirected }
}

public enum LEMetaEvent: Equatable {
    case connectionComplete(LEConnectionComplete)
    case advertisingReports([AdvertisingReport])
    case connectionUpdateComplete(status: HCIStatus, handle: ConnectionHandle, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16)
    case longTermKeyRequest(handle: ConnectionHandle, random: UInt64, ediv: UInt16)
    case remoteConnectionParameterRequest(handle: ConnectionHandle, parameters: ConnectionParameters)
    case dataLengthChange(handle: ConnectionHandle, maxTxOctets: UInt16, maxTxTime: UInt16, maxRxOctets: UInt16, maxRxTime: UInt16)
    case other(subevent: UInt8, parameters: [UInt8])

    public static let subeventConnectionComplete: UInt8 = 0x01
    public static let subeventAdvertisingReport: UInt8 = 0x02
    public static let subeventConnectionUpdateComplete: UInt8 = 0x03
    public static let subeventLongTermKeyRequest: UInt8 = 0x05
    public static let subeventRemoteConnectionParameterRequest: UInt8 = 0x06
    public static let subeventDataLengthChange: UInt8 = 0x07
    public static let subeventEnhancedConnectionComplete: UInt8 = 0x0A
    public static let subeventExtendedAdvertisingReport: UInt8 = 0x0D

    init?(parameters: ArraySlice<UInt8>) {
        var r = ByteReader(parameters)
        guard let sub = r.u8() else { return nil }
        switch sub {
        case LEMetaEvent.subeventConnectionComplete, LEMetaEvent.subeventEnhancedConnectionComplete:
            guard let s = r.u8(), let h = r.u16(), let roleByte = r.u8(), let typeByte = r.u8(),
                  let addr = r.bytes(6) else { return nil }
            var peerRPA: BluetoothAddress?
            if sub == LEMetaEvent.subeventEnhancedConnectionComplete {
                // Local and peer resolvable private addresses (zeros when
                // unused); the peer field above holds the identity when the
                // controller resolved the peer's.
                guard r.skip(6), let rpa = r.bytes(6) else { return nil }
                let address = BluetoothAddress(littleEndian: rpa, kind: .random)
                if let address, address.value != 0 { peerRPA = address }
            }
            guard let interval = r.u16(), let latency = r.u16(), let timeout = r.u16(), r.u8() != nil,
                  let kind = BluetoothAddress.Kind(rawValue: typeByte & 0x03),
                  let peer = BluetoothAddress(littleEndian: addr, kind: kind) else { return nil }
            let role = LinkRole(rawValue: roleByte) ?? .central
            self = .connectionComplete(LEConnectionComplete(status: HCIStatus(s), handle: ConnectionHandle(h), role: role,
                                                            peer: peer, interval: interval, latency: latency,
                                                            supervisionTimeout: timeout, peerResolvablePrivateAddress: peerRPA))
        case LEMetaEvent.subeventAdvertisingReport:
            guard let n = r.u8() else { return nil }
            var reports: [AdvertisingReport] = []
            for _ in 0..<n {
                guard let type = r.u8(), let addrType = r.u8(), let addr = r.bytes(6), let len = r.u8(),
                      let data = r.array(Int(len)), let rssi = r.i8() else { return nil }
                let kind: AdvertisingReport.Kind
                switch type {
                case 0x00: kind = .connectableUndirected
                case 0x01: kind = .connectableDirected
                case 0x02: kind = .scannableUndirected
                case 0x03: kind = .nonConnectable
                case 0x04: kind = .scanResponse
                default: return nil
                }
                guard let addrKind = BluetoothAddress.Kind(rawValue: addrType & 0x03),
                      let address = BluetoothAddress(littleEndian: addr, kind: addrKind) else { return nil }
                reports.append(AdvertisingReport(kind: kind, address: address, rssi: rssi, data: data))
            }
            self = .advertisingReports(reports)
        case LEMetaEvent.subeventExtendedAdvertisingReport:
            guard let n = r.u8() else { return nil }
            var reports: [AdvertisingReport] = []
            for _ in 0..<n {
                guard let eventType = r.u16(), let addrType = r.u8(), let addr = r.bytes(6),
                      r.skip(3), // primary PHY, secondary PHY, advertising SID
                      r.i8() != nil, // TX power
                      let rssi = r.i8(), r.skip(2), // periodic advertising interval
                      r.skip(7), // direct address type + address
                      let len = r.u8(), let data = r.array(Int(len)) else { return nil }
                let connectable = eventType & 0x01 != 0
                let directed = eventType & 0x04 != 0
                let scanResponse = eventType & 0x08 != 0
                let kind: AdvertisingReport.Kind = scanResponse ? .scanResponse
                    : connectable ? (directed ? .connectableDirected : .connectableUndirected)
                    : (eventType & 0x02 != 0 ? .scannableUndirected : .nonConnectable)
                // 0xFF: anonymous advertiser; nothing to connect to, skip it.
                guard addrType != 0xFF else { continue }
                guard let addrKind = BluetoothAddress.Kind(rawValue: addrType & 0x03),
                      let address = BluetoothAddress(littleEndian: addr, kind: addrKind) else { return nil }
                reports.append(AdvertisingReport(kind: kind, address: address, rssi: rssi, data: data))
            }
            self = .advertisingReports(reports)
        case LEMetaEvent.subeventConnectionUpdateComplete:
            guard let s = r.u8(), let h = r.u16(), let i = r.u16(), let l = r.u16(), let t = r.u16() else { return nil }
            self = .connectionUpdateComplete(status: HCIStatus(s), handle: ConnectionHandle(h), interval: i, latency: l, supervisionTimeout: t)
        case LEMetaEvent.subeventLongTermKeyRequest:
            guard let h = r.u16(), let rand = r.u64(), let ediv = r.u16() else { return nil }
            self = .longTermKeyRequest(handle: ConnectionHandle(h), random: rand, ediv: ediv)
        case LEMetaEvent.subeventRemoteConnectionParameterRequest:
            guard let h = r.u16(), let mn = r.u16(), let mx = r.u16(), let l = r.u16(), let t = r.u16() else { return nil }
            self = .remoteConnectionParameterRequest(handle: ConnectionHandle(h),
                                                     parameters: ConnectionParameters(intervalMin: mn, intervalMax: mx, peripheralLatency: l, supervisionTimeout: t))
        case LEMetaEvent.subeventDataLengthChange:
            guard let h = r.u16(), let a = r.u16(), let b = r.u16(), let c = r.u16(), let d = r.u16() else { return nil }
            self = .dataLengthChange(handle: ConnectionHandle(h), maxTxOctets: a, maxTxTime: b, maxRxOctets: c, maxRxTime: d)
        default:
            self = .other(subevent: sub, parameters: Array(r.rest()))
        }
    }
}
