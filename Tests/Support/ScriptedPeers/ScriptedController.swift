import BluetoothCore
import HCI

/// Answers a host's bring-up commands the way a small LE controller does,
/// so tests can get a Host to `.ready` and then script the interesting part.
/// Only what the tests are not about is faked here. Shared by the HCI
/// tests, the core tests and the pipeline benchmark.
public struct ScriptedController {
    public init() {}

    public var aclLength: UInt16 = 27
    public var aclCount: UInt8 = 4
    public var commandCredits: UInt8 = 1
    /// The 64-octet Supported_Commands mask (of the commands the host
    /// checks, Read Encryption Key Size only, by default) and the first
    /// octet of the LE features (LE Encryption only, by default).
    public var supportedCommands = ScriptedController.mask([.readEncryptionKeySize])
    public var leFeatures: UInt8 = 0x01
    /// What LE Read Filter Accept List Size, LE Read Resolving List Size
    /// and LE Read Number of Supported Advertising Sets answer (asked only
    /// when `supportedCommands` lists them).
    public var filterAcceptListSize: UInt8 = 8
    public var resolvingListSize: UInt8 = 8
    public var advertisingSets: UInt8 = 4

    /// A Supported_Commands mask listing `commands`.
    public static func mask(_ commands: [SupportedCommand]) -> [UInt8] {
        var mask = [UInt8](repeating: 0, count: 64)
        for command in commands { mask[command.position.octet] |= 1 << UInt8(command.position.bit) }
        return mask
    }

    /// The controller has `command` (or, with false, lacks it and answers
    /// it Unknown HCI Command as a real one does).
    public mutating func set(_ command: SupportedCommand, supported: Bool) {
        let (octet, bit) = command.position
        if supported { supportedCommands[octet] |= 1 << UInt8(bit) } else { supportedCommands[octet] &= ~(1 << UInt8(bit)) }
    }

    public func supports(_ command: SupportedCommand) -> Bool {
        supportedCommands[command.position.octet] & (1 << UInt8(command.position.bit)) != 0
    }
    public var sent: [HCIPacket] = []

    public static func event(_ code: UInt8, _ params: [UInt8]) -> [UInt8] {
        [HCIPacketType.event.rawValue, code, UInt8(params.count)] + params
    }

    public func commandComplete(_ opcode: HCIOpcode, _ params: [UInt8]) -> [UInt8] {
        ScriptedController.event(0x0E, [commandCredits, UInt8(opcode.value & 0xFF), UInt8(opcode.value >> 8)] + params)
    }

    public func commandStatus(_ opcode: HCIOpcode, status: UInt8 = 0) -> [UInt8] {
        ScriptedController.event(0x0F, [status, commandCredits, UInt8(opcode.value & 0xFF), UInt8(opcode.value >> 8)])
    }

    /// The reply a healthy controller gives to a bring-up command.
    public func reply(to command: HCICommand) -> [UInt8]? {
        switch command.opcode {
        case .reset, .setEventMask, .leSetEventMask, .leSetScanParameters, .leSetScanEnable:
            return commandComplete(command.opcode, [0])
        case .readLocalVersionInformation:
            return commandComplete(command.opcode, [0, 9, 0, 0, 9, 0x5F, 0x00, 0x01, 0x00])
        case .readBDAddr:
            return commandComplete(command.opcode, [0, 0x55, 0x44, 0x33, 0x22, 0x11, 0x00])
        case .readLocalSupportedCommands:
            return commandComplete(command.opcode, [0] + supportedCommands)
        case .readLocalSupportedFeatures:
            return commandComplete(command.opcode, [0, 0, 0, 0, 0, 0x40, 0, 0, 0])
        case .leReadBufferSize:
            return commandComplete(command.opcode, [0, UInt8(aclLength & 0xFF), UInt8(aclLength >> 8), aclCount])
        case .leReadLocalSupportedFeatures:
            return commandComplete(command.opcode, [0, leFeatures, 0, 0, 0, 0, 0, 0, 0])
        case .leReadFilterAcceptListSize:
            return commandComplete(command.opcode, [0, filterAcceptListSize])
        case .leReadResolvingListSize:
            return commandComplete(command.opcode, [0, resolvingListSize])
        case .leReadNumberOfSupportedAdvertisingSets:
            return commandComplete(command.opcode, [0, advertisingSets])
        default:
            return nil
        }
    }

    /// Runs bring-up to completion and returns the host's events.
    public mutating func bringUp(_ host: Host, now: Instant = .zero) -> [HostEvent] {
        host.start(now: now)
        var events: [HostEvent] = []
        var rounds = 0
        while !host.isReady && rounds < 50 {
            rounds += 1
            while let packet = host.pollTransmit(now: now) {
                sent.append(packet)
                if packet.type == .command, let command = HCICommand(body: packet.body), let answer = reply(to: command) {
                    host.receive(answer, now: now)
                }
            }
        }
        while let e = host.pollEvent() { events.append(e) }
        return events
    }

    /// LE Connection Complete (legacy) for a link to `peer`: we are the
    /// central, or with `asPeripheral` the peer connected to our advertising.
    public static func connectionComplete(handle: UInt16, peer: BluetoothAddress, status: UInt8 = 0,
                                          asPeripheral: Bool = false) -> [UInt8] {
        var p: [UInt8] = [0x01, status, UInt8(handle & 0xFF), UInt8(handle >> 8), asPeripheral ? 0x01 : 0x00, peer.kind.rawValue]
        p += peer.littleEndianBytes
        p += [24, 0, 0, 0, 0x90, 0x01, 0x00]
        return event(0x3E, p)
    }
}

public func drain(_ host: Host, now: Instant = .zero) -> [HCIPacket] {
    var out: [HCIPacket] = []
    while let p = host.pollTransmit(now: now) { out.append(p) }
    return out
}

public func events(_ host: Host) -> [HostEvent] {
    var out: [HostEvent] = []
    while let e = host.pollEvent() { out.append(e) }
    return out
}
