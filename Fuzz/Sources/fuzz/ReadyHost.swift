import BluetoothCore
@testable import HCI

/// A Host brought up against canned controller answers and holding one
/// central link: the state in which real traffic meets the parsers.
enum ReadyHost {
    static let link = ConnectionHandle(0x0040)
    static let peer = BluetoothAddress("4A:11:22:33:44:55", kind: .random)!

    /// `sets`: the controller lists the advertising-set commands (octet 36)
    /// and has two sets; `extendedScanning`: also LE Set Extended Scan
    /// Parameters / Enable and LE Extended Create Connection (octet 37).
    static func make(now: Instant, sets: Bool = false, extendedScanning: Bool = false) -> Host {
        let host = Host()
        host.start(now: now)
        var rounds = 0
        while !host.isReady, rounds < 32 {
            rounds += 1
            while let packet = host.pollTransmit(now: now) {
                guard packet.type == .command, let command = HCICommand(body: packet.body) else { continue }
                var reply = answer(to: command.opcode)
                if sets, command.opcode == .readLocalSupportedCommands { reply[1 + 36] = 0b1011_1110 }
                if extendedScanning, command.opcode == .readLocalSupportedCommands { reply[1 + 37] = 0b1110_0000 }
                // The set count is itself an extended command (Core Vol 4 Part E 3.1.1).
                invariant(command.opcode != .leReadNumberOfSupportedAdvertisingSets || (sets && extendedScanning),
                          "the set count asked of a controller the head unit drives the legacy way")
                host.receive(H4.commandComplete(command.opcode, returning: reply), now: now)
            }
        }
        invariant(host.isReady, "bring-up against the canned answers did not finish")
        host.receive(H4.connectionComplete(handle: link, peer: peer), now: now)
        while host.pollEvent() != nil {}
        invariant(host.links[link] != nil, "the canned connection did not come up")
        return host
    }

    /// A small LE 5.2 controller: 4 ACL buffers of 27 bytes.
    private static func answer(to opcode: HCIOpcode) -> [UInt8] {
        switch opcode {
        case .readLocalVersionInformation: return [0, 0x0B, 0x00, 0x00, 0x0B, 0x5F, 0x00, 0x01, 0x00]
        case .readBDAddr: return [0] + BluetoothAddress("00:1B:DC:01:02:03")!.littleEndianBytes
        case .readLocalSupportedCommands: return [0] + [UInt8](repeating: 0, count: 64)
        case .readLocalSupportedFeatures: return [0, 0, 0, 0, 0, 0x40, 0, 0, 0]
        case .leReadBufferSize: return [0, 27, 0, 4]
        case .leReadLocalSupportedFeatures: return [0, 0x01, 0, 0, 0, 0, 0, 0, 0]
        case .leReadNumberOfSupportedAdvertisingSets: return [0, 2]
        default: return [0]
        }
    }
}

/// H4 byte strings of controller-to-host packets, for the canned answers
/// and the seeds.
enum H4 {
    static func event(_ code: UInt8, _ parameters: [UInt8]) -> [UInt8] {
        [HCIPacketType.event.rawValue, code, UInt8(parameters.count)] + parameters
    }

    static func commandComplete(_ opcode: HCIOpcode, returning parameters: [UInt8], credits: UInt8 = 1) -> [UInt8] {
        event(HCIEvent.codeCommandComplete, [credits, UInt8(opcode.value & 0xFF), UInt8(opcode.value >> 8)] + parameters)
    }

    static func leMeta(_ subevent: UInt8, _ parameters: [UInt8]) -> [UInt8] {
        event(HCIEvent.codeLEMeta, [subevent] + parameters)
    }

    static func connectionComplete(handle: ConnectionHandle, peer: BluetoothAddress, role: UInt8 = 0) -> [UInt8] {
        leMeta(LEMetaEvent.subeventConnectionComplete,
               [0x00, UInt8(handle.value & 0xFF), UInt8(handle.value >> 8), role, peer.kind.rawValue]
                   + peer.littleEndianBytes + [0x18, 0x00, 0x00, 0x00, 0x90, 0x01, 0x00])
    }

    /// One ACL packet; `boundary` 0b10 starts a frame, 0b01 continues one.
    static func acl(_ handle: ConnectionHandle, boundary: UInt8, _ data: [UInt8]) -> [UInt8] {
        let header = handle.value | UInt16(boundary) << 12
        return [HCIPacketType.aclData.rawValue, UInt8(header & 0xFF), UInt8(header >> 8),
                UInt8(data.count & 0xFF), UInt8(data.count >> 8)] + data
    }

    /// An L2CAP basic frame: length, channel, payload.
    static func l2cap(channel: UInt16, _ payload: [UInt8]) -> [UInt8] {
        [UInt8(payload.count & 0xFF), UInt8(payload.count >> 8), UInt8(channel & 0xFF), UInt8(channel >> 8)] + payload
    }
}
