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
        appendConnectionParameters(p, to: &w)
        return HCICommand(.leCreateConnection, w.bytes)
    }

    /// Interval min/max, latency, supervision timeout, min/max CE length (0):
    /// the layout every connection and initiating command ends with.
    static func appendConnectionParameters(_ p: ConnectionParameters, to w: inout ByteWriter) {
        w.u16(p.intervalMin)
        w.u16(p.intervalMax)
        w.u16(p.peripheralLatency)
        w.u16(p.supervisionTimeout)
        w.u16(0) // min CE length
        w.u16(0) // max CE length
    }

    public static func leCreateConnectionCancel() -> HCICommand { HCICommand(.leCreateConnectionCancel) }

    public static func disconnect(_ handle: ConnectionHandle, reason: HCIStatus = .remoteUserTerminated) -> HCICommand {
        var w = ByteWriter(); w.u16(handle.value); w.u8(reason.code)
        return HCICommand(.disconnect, w.bytes)
    }

    public static func leConnectionUpdate(_ handle: ConnectionHandle, _ p: ConnectionParameters) -> HCICommand {
        HCICommand(.leConnectionUpdate, connectionParameterFields(handle, p))
    }

    public static func leRemoteConnectionParameterRequestReply(_ handle: ConnectionHandle, _ p: ConnectionParameters) -> HCICommand {
        HCICommand(.leRemoteConnectionParameterRequestReply, connectionParameterFields(handle, p))
    }

    /// Handle, interval min/max, latency, timeout, min/max CE length: the
    /// layout both commands share.
    private static func connectionParameterFields(_ handle: ConnectionHandle, _ p: ConnectionParameters) -> [UInt8] {
        var w = ByteWriter(capacity: 14)
        w.u16(handle.value)
        appendConnectionParameters(p, to: &w)
        return w.bytes
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

    public static func readEncryptionKeySize(_ handle: ConnectionHandle) -> HCICommand {
        var w = ByteWriter(); w.u16(handle.value)
        return HCICommand(.readEncryptionKeySize, w.bytes)
    }

    public static func readRemoteVersionInformation(_ handle: ConnectionHandle) -> HCICommand {
        var w = ByteWriter(); w.u16(handle.value)
        return HCICommand(.readRemoteVersionInformation, w.bytes)
    }
}
