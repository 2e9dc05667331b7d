import BluetoothCore
import Testing
@testable import HCI
import ScriptedPeers

/// The return parameters (status first) a healthy scripted controller gives.
func returnParameters(_ controller: ScriptedController, for command: HCICommand) -> [UInt8] {
    // H4 type, event code, length, credits, opcode: then the parameters.
    Array(controller.reply(to: command)!.dropFirst(6))
}

/// The bring-up commands in order, for a controller with LE buffers of its own.
let bringUpSequence: [HCIOpcode] = [.reset, .readLocalVersionInformation, .readBDAddr, .readLocalSupportedCommands,
                                    .readLocalSupportedFeatures, .leReadBufferSize, .setEventMask, .leSetEventMask,
                                    .leReadLocalSupportedFeatures]

@Suite struct ControllerBringUpTests {
    /// Runs the machine against `controller`, letting `answer` replace the
    /// result of any command; returns the commands sent and the last progress.
    func run(_ controller: ScriptedController = ScriptedController(),
             answer: (HCICommand) -> CommandResult? = { _ in nil }) -> ([HCICommand], ControllerBringUp.Progress) {
        var machine = ControllerBringUp()
        var command = machine.firstCommand
        var sent: [HCICommand] = []
        while sent.count < 20 {
            sent.append(command)
            let result = answer(command) ?? .complete(returnParameters(controller, for: command))
            let progress = machine.completed(result)
            guard case .send(let next) = progress else { return (sent, progress) }
            command = next
        }
        Issue.record("bring-up did not end")
        return (sent, .failed(.reset, .notAnswered))
    }

    @Test func everyStepInOrderThenReadyWithWhatWasLearned() {
        let (sent, progress) = run()
        #expect(sent.map(\.opcode) == bringUpSequence)
        #expect(sent[6] == .setEventMask(ControllerBringUp.eventMask))
        #expect(sent[7] == .leSetEventMask(ControllerBringUp.leEventMask))
        guard case .ready(let info) = progress else {
            Issue.record("not ready")
            return
        }
        #expect(info.address == BluetoothAddress("00:11:22:33:44:55"))
        #expect(info.hciVersion == 9 && info.manufacturer == 0x005F && info.lmpSubversion == 0x0001)
        #expect(info.supportedCommands.count == 64)
        #expect(info.supportsLE)
        #expect(info.leFeatures == 0x01)
        #expect(info.aclDataLength == 27 && info.aclBufferCount == 4)
    }

    @Test func withoutLEBuffersTheSharedBuffersAreRead() {
        var controller = ScriptedController()
        controller.aclCount = 0
        let (sent, progress) = run(controller) { command in
            // Read Buffer Size: 1021-byte ACL packets, 8 of them (and 64/1 SCO).
            command.opcode == .readBufferSize ? .complete([0, 0xFD, 0x03, 64, 8, 0, 1, 0]) : nil
        }
        #expect(Array(sent.map(\.opcode)[4...6]) == [.readLocalSupportedFeatures, .leReadBufferSize, .readBufferSize])
        guard case .ready(let info) = progress else {
            Issue.record("not ready")
            return
        }
        #expect(info.aclDataLength == 1021 && info.aclBufferCount == 8)
    }

    @Test func leReadBufferSizeV2WhenTheControllerHasIt() {
        let (sent, progress) = run { command in
            switch command.opcode {
            case .readLocalSupportedCommands:
                return .complete([0] + ScriptedController.mask([.leReadBufferSizeV2]))
            case .leReadBufferSizeV2:
                // 251-byte LE ACL packets, 12 of them, then the ISO buffers.
                return .complete([0, 0xFB, 0x00, 12, 0x00, 0x01, 4])
            default:
                return nil
            }
        }
        #expect(sent[5].opcode == .leReadBufferSizeV2)
        guard case .ready(let info) = progress else {
            Issue.record("not ready")
            return
        }
        #expect(info.aclDataLength == 251 && info.aclBufferCount == 12)
    }

    /// The set count is asked only with these (LECommandFormTests).
    static let extendedScanning: [SupportedCommand] = [.leSetExtendedScanParameters, .leSetExtendedScanEnable,
                                                       .leExtendedCreateConnection]

    /// A controller that lists the size commands is asked for each, in
    /// order, after the LE features; the sizes are in the description.
    @Test func theListSizesAndAdvertisingSetsAreReadWhenTheControllerHasTheCommands() {
        var controller = ScriptedController()
        for command: SupportedCommand in [.leReadFilterAcceptListSize, .leReadResolvingListSize, .leReadNumberOfSupportedAdvertisingSets]
            + Self.extendedScanning {
            controller.set(command, supported: true)
        }
        (controller.filterAcceptListSize, controller.resolvingListSize, controller.advertisingSets) = (2, 1, 4)
        let (sent, progress) = run(controller)
        #expect(sent.map(\.opcode) == bringUpSequence + [.leReadFilterAcceptListSize, .leReadResolvingListSize,
                                                          .leReadNumberOfSupportedAdvertisingSets])
        guard case .ready(let info) = progress else {
            Issue.record("not ready")
            return
        }
        #expect(info.filterAcceptListSize == 2 && info.resolvingListSize == 1 && info.advertisingSets == 4)
        #expect(info.supports(.readEncryptionKeySize))
    }

    /// Each size command the controller lacks is skipped (never sent), and
    /// that size stays unknown.
    @Test(arguments: SupportedCommand.allCases.filter { [.leReadFilterAcceptListSize, .leReadResolvingListSize,
                                                           .leReadNumberOfSupportedAdvertisingSets].contains($0) })
    func aSizeCommandTheControllerLacksIsNotSent(lacking: SupportedCommand) {
        var controller = ScriptedController()
        for command: SupportedCommand in [.leReadFilterAcceptListSize, .leReadResolvingListSize, .leReadNumberOfSupportedAdvertisingSets] {
            controller.set(command, supported: command != lacking)
        }
        for command in Self.extendedScanning { controller.set(command, supported: true) }
        let (sent, progress) = run(controller)
        #expect(!sent.map(\.opcode).contains(lacking.opcode))
        #expect(sent.count == bringUpSequence.count + 2)
        guard case .ready(let info) = progress else {
            Issue.record("not ready")
            return
        }
        #expect((info.filterAcceptListSize == nil) == (lacking == .leReadFilterAcceptListSize))
        #expect((info.resolvingListSize == nil) == (lacking == .leReadResolvingListSize))
        #expect((info.advertisingSets == nil) == (lacking == .leReadNumberOfSupportedAdvertisingSets))
    }

    /// A controller that lists a size command and then refuses it still
    /// comes up: the size is unknown, nothing more.
    @Test func aRefusedSizeCommandLeavesTheSizeUnknown() {
        var controller = ScriptedController()
        controller.set(.leReadResolvingListSize, supported: true)
        let (sent, progress) = run(controller) { command in
            command.opcode == .leReadResolvingListSize ? .complete([HCIStatus.unknownCommand.code]) : nil
        }
        #expect(sent.last?.opcode == .leReadResolvingListSize)
        guard case .ready(let info) = progress else {
            Issue.record("not ready")
            return
        }
        #expect(info.resolvingListSize == nil)
    }

    @Test(arguments: 0..<9)
    func aFailingStatusAtAnyStepEndsBringUpThere(index: Int) {
        let failing = bringUpSequence[index]
        let (sent, progress) = run { command in
            command.opcode == failing ? .complete([HCIStatus.commandDisallowed.code]) : nil
        }
        #expect(sent.map(\.opcode) == Array(bringUpSequence[...index]))
        guard case let .failed(step, failure) = progress else {
            Issue.record("no failure at \(failing)")
            return
        }
        #expect(step.opcode == failing)
        #expect(failure == .status(.commandDisallowed))
    }

    /// Each step that returns parameters, answered with a success status
    /// and one byte less than it needs.
    @Test(arguments: [1, 2, 3, 4, 5, 8])
    func aShortReplyAtAnyStepEndsBringUpThere(index: Int) {
        let short = bringUpSequence[index]
        let healthy = ScriptedController()
        let (sent, progress) = run { command in
            guard command.opcode == short else { return nil }
            return .complete(returnParameters(healthy, for: command).dropLast())
        }
        #expect(sent.last?.opcode == short)
        guard case let .failed(step, .malformedReply(opcode, _)) = progress else {
            Issue.record("no malformed reply at \(short)")
            return
        }
        #expect(step.opcode == short && opcode == short)
    }

    @Test func anEmptyOrMisplacedReplyIsMalformed() {
        // Command Complete without even a status byte, for HCI Reset.
        let (_, empty) = run { command in command.opcode == .reset ? .complete([]) : nil }
        #expect(empty == .failed(.reset, .malformedReply(.reset, length: 0)))
        // A Command Status (success) where Command Complete belongs.
        let (_, pending) = run { command in command.opcode == .readBDAddr ? .pending(.success) : nil }
        #expect(pending == .failed(.readBDAddr, .malformedReply(.readBDAddr, length: 0)))
        // A Command Status with an error is that error.
        let (_, refused) = run { command in command.opcode == .readBDAddr ? .pending(.hardwareFailure) : nil }
        #expect(refused == .failed(.readBDAddr, .status(.hardwareFailure)))
    }

    // MARK: - in the host

    @Test func aFailingStepInTheHostResetsTheControllerAndBringUpStartsOver() {
        let host = Host()
        let controller = ScriptedController()
        host.start(now: .zero)
        // Answer healthily up to Read BD_ADDR, which fails.
        var opcodes: [HCIOpcode] = []
        while let packet = host.pollTransmit(now: .zero), let command = HCICommand(body: packet.body) {
            opcodes.append(command.opcode)
            if command.opcode == .readBDAddr {
                host.receive(controller.commandComplete(.readBDAddr, [HCIStatus.hardwareFailure.code]), now: .zero)
            } else {
                host.receive(controller.reply(to: command)!, now: .zero)
            }
        }
        #expect(opcodes == [.reset, .readLocalVersionInformation, .readBDAddr])
        #expect(!host.isReady)
        #expect(events(host) == [.controllerReset(reason: "bring-up failed at Read_BD_ADDR: Hardware Failure (0x03)")])
        // After the back-off: Reset again, and this time all the way.
        let retry = try! #require(host.nextDeadline)
        #expect(retry == Instant(milliseconds: 1000))
        host.handleTimeout(now: retry)
        var again: [HCIOpcode] = []
        while let packet = host.pollTransmit(now: retry), let command = HCICommand(body: packet.body) {
            again.append(command.opcode)
            host.receive(controller.reply(to: command)!, now: retry)
        }
        #expect(again == bringUpSequence)
        #expect(host.isReady && host.controller.address == BluetoothAddress("00:11:22:33:44:55"))
        guard case .ready? = events(host).last else {
            Issue.record("no ready event")
            return
        }
    }

    @Test func aGarbledReplyInTheHostResetsTheController() {
        let host = Host()
        let controller = ScriptedController()
        host.start(now: .zero)
        while let packet = host.pollTransmit(now: .zero), let command = HCICommand(body: packet.body) {
            if command.opcode == .leReadBufferSize {
                host.receive(controller.commandComplete(.leReadBufferSize, [0x00, 0x1B]), now: .zero)
            } else {
                host.receive(controller.reply(to: command)!, now: .zero)
            }
        }
        #expect(!host.isReady)
        #expect(events(host) == [.controllerReset(reason: "bring-up failed at LE_Read_Buffer_Size: malformed reply to LE_Read_Buffer_Size (2 bytes)")])
    }
}

@Suite struct CommandReturnTests {
    @Test func encryptionKeySize() throws {
        let ok = CommandResult.complete([0x00, 0x40, 0x00, 16]).decode(ReadEncryptionKeySizeResult.self, for: .readEncryptionKeySize)
        #expect(try ok.get() == ReadEncryptionKeySizeResult(handle: ConnectionHandle(0x40), keySize: 16))
        let short = CommandResult.complete([0x00, 0x40, 0x00]).decode(ReadEncryptionKeySizeResult.self, for: .readEncryptionKeySize)
        #expect(short == .failure(.malformedReply(.readEncryptionKeySize, length: 3)))
        let refused = CommandResult.complete([0x02, 0x40, 0x00, 0]).decode(ReadEncryptionKeySizeResult.self, for: .readEncryptionKeySize)
        #expect(refused == .failure(.status(.unknownConnectionIdentifier)))
        let silent = CommandResult.notAnswered.decode(ReadEncryptionKeySizeResult.self, for: .readEncryptionKeySize)
        #expect(silent == .failure(.notAnswered))
    }

    @Test func hostReadsTheKeySizeOfTheLinkAskedFor() {
        var controller = ScriptedController()
        let host = Host()
        _ = controller.bringUp(host)
        _ = events(host)
        host.readEncryptionKeySize(ConnectionHandle(0x40))
        let sent = drain(host)
        #expect(sent.count == 1 && HCICommand(body: sent[0].body) == .readEncryptionKeySize(ConnectionHandle(0x40)))
        host.receive(controller.commandComplete(.readEncryptionKeySize, [0x00, 0x40, 0x00, 7]), now: .zero)
        // An answer naming another link cannot be this link's key size.
        host.readEncryptionKeySize(ConnectionHandle(0x40))
        _ = drain(host)
        host.receive(controller.commandComplete(.readEncryptionKeySize, [0x00, 0x41, 0x00, 16]), now: .zero)
        #expect(events(host) == [
            .encryptionKeySize(handle: ConnectionHandle(0x40), .success(ReadEncryptionKeySizeResult(handle: ConnectionHandle(0x40), keySize: 7))),
            .encryptionKeySize(handle: ConnectionHandle(0x40), .failure(.malformedReply(.readEncryptionKeySize, length: 4))),
        ])
    }

    @Test func bufferSizes() {
        let shared = CommandResult.complete([0, 0xFD, 0x03, 64, 8, 0, 1, 0]).decode(ReadBufferSizeResult.self, for: .readBufferSize)
        #expect(shared == .success(ReadBufferSizeResult(aclDataLength: 1021, synchronousDataLength: 64, aclPacketCount: 8, synchronousPacketCount: 1)))
        let le = CommandResult.complete([0, 0, 0, 0]).decode(LEReadBufferSizeResult.self, for: .leReadBufferSize)
        #expect((try? le.get().hasLEBuffers) == false)
        let short = CommandResult.complete([0, 0xFD, 0x03, 64, 8, 0, 1]).decode(ReadBufferSizeResult.self, for: .readBufferSize)
        #expect(short == .failure(.malformedReply(.readBufferSize, length: 7)))
    }
}
