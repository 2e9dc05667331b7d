import BluetoothCore
import HCI

/// The link side of the scripted controller: connection and disconnection
/// events, encryption, and L2CAP frames cut into ACL packets and put
/// together again, as the bytes a host receives.
extension ScriptedController {
    public static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }

    /// The answer to any command a host sends while it runs: the bring-up
    /// replies, Command Status for what completes later, Command Complete
    /// with success for the rest. `encryptionKeySize` answers Read
    /// Encryption Key Size. A checked command (`SupportedCommand`) the
    /// mask does not list is answered Unknown HCI Command.
    public func answer(_ command: HCICommand, encryptionKeySize: UInt8 = 16) -> [[UInt8]] {
        if let checked = SupportedCommand(opcode: command.opcode), !supports(checked) {
            return [commandComplete(command.opcode, [HCIStatus.unknownCommand.code])]
        }
        if let reply = reply(to: command) { return [reply] }
        let p = command.parameters
        switch command.opcode {
        case .leCreateConnection, .leEnableEncryption, .leConnectionUpdate, .disconnect:
            var out = [commandStatus(command.opcode)]
            if command.opcode == .disconnect, p.count >= 3 {
                // Disconnection Complete, reason: connection terminated by local host.
                out.append(ScriptedController.event(0x05, [0x00, p[0], p[1], 0x16]))
            }
            return out
        case .readEncryptionKeySize:
            return [commandComplete(command.opcode, [0] + Array(p.prefix(2)) + [encryptionKeySize])]
        case .leCreateConnectionCancel:
            // The attempt ends with an LE Connection Complete, status Unknown Connection (0x02).
            return [commandComplete(command.opcode, [0]),
                    ScriptedController.event(0x3E, [0x01, 0x02, 0, 0, 0x00, 0x00] + [UInt8](repeating: 0, count: 6) + [0, 0, 0, 0, 0, 0, 0])]
        default:
            return [commandComplete(command.opcode, [0])]
        }
    }

    /// The controller gives the ACL buffer of one sent packet back.
    public static func completed(handle: UInt16, packets: UInt16 = 1) -> [UInt8] {
        event(0x13, [1] + le16(handle) + le16(packets))
    }

    /// Encryption Change: `status` 0 with encryption on, or the failure.
    public static func encryptionChange(handle: UInt16, status: UInt8 = 0, enabled: Bool = true) -> [UInt8] {
        event(0x08, [status] + le16(handle) + [enabled && status == 0 ? 1 : 0])
    }

    /// Disconnection Complete with `reason` (0x08: supervision timeout, the link was lost).
    public static func disconnectionComplete(handle: UInt16, reason: UInt8 = 0x08) -> [UInt8] {
        event(0x05, [0x00] + le16(handle) + [reason])
    }

    /// One LE Advertising Report.
    public static func advertisingReport(_ address: BluetoothAddress, connectable: Bool = true, data: [UInt8], rssi: Int8 = -50) -> [UInt8] {
        var p: [UInt8] = [0x02, 1, connectable ? 0x00 : 0x03, address.kind.rawValue]
        p += address.littleEndianBytes
        p += [UInt8(data.count)] + data + [UInt8(bitPattern: rssi)]
        return event(0x3E, p)
    }

    /// A complete L2CAP frame on `channel` as the ACL packets (at most
    /// `aclLength` bytes each) that carry it from the controller.
    public func acl(handle: UInt16, channel: UInt16, _ payload: [UInt8]) -> [[UInt8]] {
        let frame = ScriptedController.le16(UInt16(payload.count)) + ScriptedController.le16(channel) + payload
        var packets: [[UInt8]] = []
        var offset = 0
        while offset < frame.count {
            let end = min(offset + Int(aclLength), frame.count)
            let pb: UInt16 = offset == 0 ? 0b10 : 0b01
            packets.append([HCIPacketType.aclData.rawValue] + ScriptedController.le16(handle | pb << 12)
                           + ScriptedController.le16(UInt16(end - offset)) + Array(frame[offset..<end]))
            offset = end
        }
        return packets
    }
}

/// Puts the host's ACL packets back together into L2CAP frames, per link.
public struct L2CAPFrames {
    public struct Frame {
        public var handle: UInt16
        public var channel: UInt16
        public var payload: [UInt8]
    }

    private var partial: [UInt16: [UInt8]] = [:]

    public init() {}

    /// Takes the body of one ACL packet; returns the frame it completes, if any.
    public mutating func take(_ body: [UInt8]) -> Frame? {
        guard body.count >= 4 else { return nil }
        let handle = (UInt16(body[0]) | UInt16(body[1]) << 8) & 0x0FFF
        let pb = body[1] >> 4 & 0x3
        if pb != 0b01 { partial[handle] = [] }
        partial[handle, default: []] += body[4...]
        guard let bytes = partial[handle], bytes.count >= 4 else { return nil }
        let length = Int(bytes[0]) | Int(bytes[1]) << 8
        guard bytes.count >= 4 + length else { return nil }
        partial[handle] = []
        return Frame(handle: handle, channel: UInt16(bytes[2]) | UInt16(bytes[3]) << 8, payload: Array(bytes[4..<(4 + length)]))
    }
}
