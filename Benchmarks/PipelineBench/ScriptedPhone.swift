import BluetoothCore
import HCI

/// The controller and the phone behind it, as the bytes the host receives:
/// answers the host's bring-up commands like a small LE controller, returns
/// every ACL buffer with Number Of Completed Packets, and plays an iPhone's
/// ANCS (Write Responses, Data Source answers fragmented to the ATT_MTU and
/// then to 27-byte ACL packets, as the simulated phone does).
struct ScriptedPhone {
    static let link: UInt16 = 0x0040
    static let controlPoint: UInt16 = 0x0013
    static let dataSource: UInt16 = 0x0015
    let mtu = 247
    let aclSize = 27
    /// Notifications the phone holds: UID -> (app, title, message).
    var notifications: [UInt32: (app: String, title: String, message: String)] = [:]
    /// Outbound L2CAP frame being reassembled from the host's ACL fragments.
    private var partial: [UInt8] = []

    static func event(_ code: UInt8, _ params: [UInt8]) -> [UInt8] {
        [HCIPacketType.event.rawValue, code, UInt8(params.count)] + params
    }

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }

    func commandComplete(_ opcode: HCIOpcode, _ params: [UInt8]) -> [UInt8] {
        ScriptedPhone.event(0x0E, [1] + ScriptedPhone.le16(opcode.value) + params)
    }

    /// LE Connection Complete (we are central), then Encryption Change: the bonded link is up.
    func linkUp() -> [[UInt8]] {
        var p: [UInt8] = [0x01, 0x00] + ScriptedPhone.le16(ScriptedPhone.link) + [0x00, 0x01]
        p += [0x10, 0x32, 0x54, 0x76, 0x98, 0xC0]
        p += [24, 0, 0, 0, 0x90, 0x01, 0x00]
        return [ScriptedPhone.event(0x3E, p),
                ScriptedPhone.event(0x08, [0x00] + ScriptedPhone.le16(ScriptedPhone.link) + [0x01])]
    }

    /// One ATT PDU from the phone as the H4 ACL packets that carry it.
    func acl(_ att: [UInt8]) -> [[UInt8]] {
        let frame = ScriptedPhone.le16(UInt16(att.count)) + ScriptedPhone.le16(0x0004) + att
        var packets: [[UInt8]] = []
        var offset = 0
        while offset < frame.count {
            let end = min(offset + aclSize, frame.count)
            let pb: UInt16 = offset == 0 ? 0b10 : 0b01
            packets.append([HCIPacketType.aclData.rawValue] + ScriptedPhone.le16(ScriptedPhone.link | pb << 12)
                           + ScriptedPhone.le16(UInt16(end - offset)) + Array(frame[offset..<end]))
            offset = end
        }
        return packets
    }

    func notify(_ handle: UInt16, _ value: [UInt8]) -> [[UInt8]] { acl([0x1B] + ScriptedPhone.le16(handle) + value) }

    /// Notification Source: EventID, flags, category, count, UID.
    func notificationSource(event: UInt8, uid: UInt32, category: UInt8 = 4) -> [[UInt8]] {
        notify(0x0010, [event, 0x00, category, 1] + ScriptedPhone.le32(uid))
    }

    /// What the phone and controller send back for one packet from the host.
    mutating func answer(_ packet: HCIPacket) -> [[UInt8]] {
        switch packet.type {
        case .command:
            guard let command = HCICommand(body: packet.body) else { return [] }
            return bringUpReply(command).map { [$0] } ?? []
        case .aclData:
            let body = packet.body
            guard body.count >= 4 else { return [] }
            // The buffer comes back at once: Number Of Completed Packets.
            var out = [ScriptedPhone.event(0x13, [1] + ScriptedPhone.le16(ScriptedPhone.link) + [1, 0])]
            let pb = body[1] >> 4 & 0x3
            if pb != 0b01 { partial = [] }
            partial += body[4...]
            guard partial.count >= 4, partial.count >= 4 + Int(partial[0]) + Int(partial[1]) << 8 else { return out }
            let att = Array(partial[4...])
            partial = []
            out += attAnswer(att)
            return out
        default:
            return []
        }
    }

    private func bringUpReply(_ command: HCICommand) -> [UInt8]? {
        switch command.opcode {
        case .reset, .setEventMask, .leSetEventMask:
            return commandComplete(command.opcode, [0])
        case .readLocalVersionInformation:
            return commandComplete(command.opcode, [0, 9, 0, 0, 9, 0x5F, 0x00, 0x01, 0x00])
        case .readBDAddr:
            return commandComplete(command.opcode, [0, 0x01, 0x00, 0x00, 0x32, 0xA6, 0xDC])
        case .readLocalSupportedCommands:
            return commandComplete(command.opcode, [0] + [UInt8](repeating: 0, count: 64))
        case .readLocalSupportedFeatures:
            return commandComplete(command.opcode, [0, 0, 0, 0, 0, 0x40, 0, 0, 0])
        case .leReadBufferSize:
            return commandComplete(command.opcode, [0, UInt8(aclSize), 0, 8])
        case .leReadLocalSupportedFeatures:
            return commandComplete(command.opcode, [0, 0x01, 0, 0, 0, 0, 0, 0, 0])
        default:
            return commandComplete(command.opcode, [0])
        }
    }

    private func attAnswer(_ att: [UInt8]) -> [[UInt8]] {
        guard let opcode = att.first else { return [] }
        switch opcode {
        case 0x02:  // Exchange MTU Request
            return acl([0x03] + ScriptedPhone.le16(517))
        case 0x12 where att.count >= 3:  // Write Request
            let handle = UInt16(att[1]) | UInt16(att[2]) << 8
            let value = Array(att[3...])
            guard handle == ScriptedPhone.controlPoint else { return acl([0x13]) }
            return controlPoint(value)
        default:
            return []
        }
    }

    /// A Control Point command: Write Response, then the Data Source answer.
    private func controlPoint(_ command: [UInt8]) -> [[UInt8]] {
        let error = { (code: UInt8) in self.acl([0x01, 0x12] + ScriptedPhone.le16(ScriptedPhone.controlPoint) + [code]) }
        guard let id = command.first else { return error(0xA1) }
        var response: [UInt8]
        switch id {
        case 0:  // GetNotificationAttributes
            guard command.count >= 5 else { return error(0xA1) }
            let uid = UInt32(command[1]) | UInt32(command[2]) << 8 | UInt32(command[3]) << 16 | UInt32(command[4]) << 24
            guard let n = notifications[uid] else { return error(0xA2) }
            response = Array(command[0..<5])
            var i = 5
            while i < command.count {
                let attribute = command[i]
                i += 1
                var maxLength = Int.max
                if (1...3).contains(attribute), i + 1 < command.count {
                    maxLength = Int(command[i]) | Int(command[i + 1]) << 8
                    i += 2
                }
                let text: String
                switch attribute {
                case 0: text = n.app
                case 1: text = n.title
                case 3: text = n.message
                case 5: text = "20261122T071500"
                default: text = ""
                }
                let bytes = Array(text.utf8.prefix(maxLength))
                response += [attribute] + ScriptedPhone.le16(UInt16(bytes.count)) + bytes
            }
        case 1:  // GetAppAttributes: the app's display name
            guard let end = command.dropFirst().firstIndex(of: 0) else { return error(0xA1) }
            response = Array(command[0...end])
            for attribute in command[(end + 1)...] {
                let name = Array("Google Maps".utf8)
                response += [attribute] + ScriptedPhone.le16(UInt16(name.count)) + name
            }
        default:
            return error(0xA1)
        }
        var out = acl([0x13])
        var offset = 0
        while offset < response.count {
            let end = min(offset + mtu - 3, response.count)
            out += notify(ScriptedPhone.dataSource, Array(response[offset..<end]))
            offset = end
        }
        return out
    }
}
