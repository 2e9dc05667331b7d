import BluetoothCore

/// A command as the host sends it: opcode plus parameter bytes.
public struct HCICommand: Equatable {
    public var opcode: HCIOpcode
    public var parameters: [UInt8]

    public init(_ opcode: HCIOpcode, _ parameters: [UInt8] = []) {
        self.opcode = opcode
        self.parameters = parameters
    }

    public var packet: HCIPacket {
        var w = ByteWriter(capacity: 3 + parameters.count)
        w.u16(opcode.value)
        w.u8(UInt8(truncatingIfNeeded: parameters.count))
        w.append(parameters)
        return HCIPacket(type: .command, body: w.bytes)
    }

    /// Parses a command packet body (used by tests and trace tools).
    public init?(body: [UInt8]) {
        var r = ByteReader(body)
        guard let op = r.u16(), let length = r.u8(), let params = r.array(Int(length)), r.isAtEnd else { return nil }
        self.init(HCIOpcode(op), params)
    }
}

/// LE connection parameters in controller units: interval 1.25 ms,
/// supervision timeout 10 ms.
public struct ConnectionParameters: Equatable, CustomStringConvertible {
    public var intervalMin: UInt16
    public var intervalMax: UInt16
    public var latency: UInt16
    public var supervisionTimeout: UInt16

    public init(intervalMin: UInt16, intervalMax: UInt16, latency: UInt16, supervisionTimeout: UInt16) {
        self.intervalMin = intervalMin
        self.intervalMax = intervalMax
        self.latency = latency
        self.supervisionTimeout = supervisionTimeout
    }

    /// 30-50 ms interval, no latency, 4 s supervision timeout: responsive for
    /// GATT discovery and still gentle on a phone's battery.
    public static let `default` = ConnectionParameters(intervalMin: 24, intervalMax: 40, latency: 0, supervisionTimeout: 400)

    /// The ranges of the Core specification (Vol 4 Part E 7.8.12): interval
    /// 7.5 ms..4 s, latency up to 499, timeout 100 ms..32 s and longer than
    /// (1 + latency) * interval * 2.
    public var isValid: Bool {
        guard intervalMin >= 6, intervalMax <= 3200, intervalMin <= intervalMax,
              latency <= 499, supervisionTimeout >= 10, supervisionTimeout <= 3200 else { return false }
        // timeout (10 ms units) * 10 > (1 + latency) * intervalMax (1.25 ms units) * 1.25 * 2
        let timeoutMicros = Int(supervisionTimeout) * 10_000
        let needed = (1 + Int(latency)) * Int(intervalMax) * 1250 * 2
        return timeoutMicros > needed
    }

    public var description: String {
        "interval \(intervalMin)-\(intervalMax) latency \(latency) timeout \(supervisionTimeout)"
    }
}

/// Builders for the commands the host sends, with their parameter layouts.
extension HCICommand {
    public static func reset() -> HCICommand { HCICommand(.reset) }

    public static func setEventMask(_ mask: UInt64) -> HCICommand {
        var w = ByteWriter(); w.u64(mask)
        return HCICommand(.setEventMask, w.bytes)
    }

    public static func leSetEventMask(_ mask: UInt64) -> HCICommand {
        var w = ByteWriter(); w.u64(mask)
        return HCICommand(.leSetEventMask, w.bytes)
    }

    public static func leSetScanParameters(active: Bool, interval: UInt16, window: UInt16,
                                           ownAddressType: UInt8 = 0, filterPolicy: UInt8 = 0) -> HCICommand {
        var w = ByteWriter()
        w.u8(active ? 1 : 0)
        w.u16(interval)
        w.u16(window)
        w.u8(ownAddressType)
        w.u8(filterPolicy)
        return HCICommand(.leSetScanParameters, w.bytes)
    }

    public static func leSetScanEnable(_ enable: Bool, filterDuplicates: Bool) -> HCICommand {
        HCICommand(.leSetScanEnable, [enable ? 1 : 0, filterDuplicates ? 1 : 0])
    }

    public static func leCreateConnection(peer: BluetoothAddress, parameters p: ConnectionParameters,
                                          scanInterval: UInt16 = 96, scanWindow: UInt16 = 48,
                                          ownAddressType: UInt8 = 0) -> HCICommand {
        var w = ByteWriter(capacity: 25)
        w.u16(scanInterval)
        w.u16(scanWindow)
        w.u8(0) // initiator filter policy: use the peer address below
        // Types 2/3 (identity addresses) are only valid with a resolving list.
        w.u8(peer.kind.rawValue)
        w.append(peer.littleEndianBytes)
        w.u8(ownAddressType)
        w.u16(p.intervalMin)
        w.u16(p.intervalMax)
        w.u16(p.latency)
        w.u16(p.supervisionTimeout)
        w.u16(0) // min CE length
        w.u16(0) // max CE length
        return HCICommand(.leCreateConnection, w.bytes)
    }

    public static func leCreateConnectionCancel() -> HCICommand { HCICommand(.leCreateConnectionCancel) }

    public static func disconnect(_ handle: ConnectionHandle, reason: HCIStatus = .remoteUserTerminated) -> HCICommand {
        var w = ByteWriter(); w.u16(handle.value); w.u8(reason.code)
        return HCICommand(.disconnect, w.bytes)
    }

    public static func leConnectionUpdate(_ handle: ConnectionHandle, _ p: ConnectionParameters) -> HCICommand {
        var w = ByteWriter(capacity: 14)
        w.u16(handle.value)
        w.u16(p.intervalMin)
        w.u16(p.intervalMax)
        w.u16(p.latency)
        w.u16(p.supervisionTimeout)
        w.u16(0)
        w.u16(0)
        return HCICommand(.leConnectionUpdate, w.bytes)
    }

    public static func leRemoteConnectionParameterRequestReply(_ handle: ConnectionHandle, _ p: ConnectionParameters) -> HCICommand {
        var w = ByteWriter(capacity: 14)
        w.u16(handle.value)
        w.u16(p.intervalMin)
        w.u16(p.intervalMax)
        w.u16(p.latency)
        w.u16(p.supervisionTimeout)
        w.u16(0)
        w.u16(0)
        return HCICommand(.leRemoteConnectionParameterRequestReply, w.bytes)
    }

    public static func leRemoteConnectionParameterRequestNegativeReply(_ handle: ConnectionHandle, reason: HCIStatus) -> HCICommand {
        var w = ByteWriter(); w.u16(handle.value); w.u8(reason.code)
        return HCICommand(.leRemoteConnectionParameterRequestNegativeReply, w.bytes)
    }

    /// Starts (or refreshes) link encryption as central with a bonded key.
    public static func leEnableEncryption(_ handle: ConnectionHandle, random: UInt64, ediv: UInt16, ltk: [UInt8]) -> HCICommand {
        var w = ByteWriter(capacity: 28)
        w.u16(handle.value)
        w.u64(random)
        w.u16(ediv)
        w.append(ltk)
        return HCICommand(.leEnableEncryption, w.bytes)
    }

    public static func leSetDataLength(_ handle: ConnectionHandle, txOctets: UInt16, txTime: UInt16) -> HCICommand {
        var w = ByteWriter(); w.u16(handle.value); w.u16(txOctets); w.u16(txTime)
        return HCICommand(.leSetDataLength, w.bytes)
    }

    public static func readRemoteVersionInformation(_ handle: ConnectionHandle) -> HCICommand {
        var w = ByteWriter(); w.u16(handle.value)
        return HCICommand(.readRemoteVersionInformation, w.bytes)
    }
}
