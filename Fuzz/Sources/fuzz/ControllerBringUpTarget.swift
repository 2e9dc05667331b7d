import BluetoothCore
@testable import HCI

/// Controller bring-up fed any reply to each of its commands: a Command
/// Complete with fuzzed return parameters (a healthy reply cut, extended or
/// with its status changed, or bytes of any kind), a Command Status, or no
/// answer.
///
/// Properties: bring-up ends, ready or failed, within the number of steps
/// there are; it never asks for a command twice; a ready controller has
/// at least the LE minimum of ACL buffers and the whole Supported Commands
/// mask, and knows a list size or the number of advertising sets only
/// where its mask lists the command that tells; a failure names the step
/// whose reply was bad.
enum ControllerBringUpTarget {
    static let target = FuzzTarget(name: "controller-bring-up", run: run, seeds: seeds)

    /// At most one per step, with Read Buffer Size as the extra one.
    static let maximumSteps = 13

    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        var machine = ControllerBringUp()
        var command = machine.firstCommand
        var sent: [HCIOpcode] = []
        while true {
            invariant(!sent.contains(command.opcode), "\(command.opcode) asked for twice")
            sent.append(command.opcode)
            invariant(sent.count <= maximumSteps, "bring-up took more than \(maximumSteps) commands")
            let result = reply(to: command, &input)
            let step = machine.step
            switch machine.completed(result) {
            case .send(let next):
                command = next
            case .ready(let info):
                invariant(info.aclDataLength >= 27 && info.aclBufferCount >= 1,
                          "ready with \(info.aclBufferCount) x \(info.aclDataLength) ACL buffers")
                invariant(info.supportedCommands.count == 64, "ready with \(info.supportedCommands.count) octets of supported commands")
                invariant(machine.step == nil, "ready with a step still outstanding")
                invariant(info.filterAcceptListSize == nil || info.supports(.leReadFilterAcceptListSize), "accept list size read unasked")
                invariant(info.resolvingListSize == nil || info.supports(.leReadResolvingListSize), "resolving list size read unasked")
                invariant(info.advertisingSets == nil || info.supports(.leReadNumberOfSupportedAdvertisingSets),
                          "advertising sets read unasked")
                for checked in SupportedCommand.allCases where !info.supports(checked) {
                    invariant(!sent.contains(checked.opcode), "\(checked.opcode) sent to a controller that lacks it")
                }
                return
            case let .failed(failedStep, _):
                invariant(failedStep == step, "failed at \(failedStep) while \(step?.description ?? "nothing") was outstanding")
                invariant(machine.step == nil, "failed with a step still outstanding")
                return
            }
        }
    }

    /// The reply the input chooses for `command`.
    static func reply(to command: HCICommand, _ input: inout FuzzInput) -> CommandResult {
        let healthy = healthyReply(to: command.opcode)
        switch input.byte() % 6 {
        case 0, 1: return .complete(healthy)
        case 2: return .complete(Array(healthy.prefix(Int(input.byte()) % (healthy.count + 1))))
        case 3: return .complete([input.byte()] + healthy.dropFirst() + input.chunk())
        case 4: return .complete(input.chunk())
        default: return input.bool() ? .pending(HCIStatus(input.byte())) : .notAnswered
        }
    }

    /// A small LE controller's replies, status first.
    static func healthyReply(to opcode: HCIOpcode) -> [UInt8] {
        switch opcode {
        case .readLocalVersionInformation: return [0, 0x0B, 0x00, 0x00, 0x0B, 0x5F, 0x00, 0x01, 0x00]
        case .readBDAddr: return [0, 0x03, 0x02, 0x01, 0xDC, 0x1B, 0x00]
        case .readLocalSupportedCommands: return [0] + [UInt8](repeating: 0xFF, count: 64)
        case .readLocalSupportedFeatures: return [0, 0, 0, 0, 0, 0x40, 0, 0, 0]
        case .leReadBufferSize: return [0, 27, 0, 4]
        case .leReadBufferSizeV2: return [0, 0xFB, 0x00, 12, 0x00, 0x01, 4]
        case .readBufferSize: return [0, 0xFD, 0x03, 64, 8, 0, 1, 0]
        case .leReadLocalSupportedFeatures: return [0, 0x61, 0, 0, 0, 0, 0, 0, 0]
        case .leReadFilterAcceptListSize, .leReadResolvingListSize: return [0, 8]
        case .leReadNumberOfSupportedAdvertisingSets: return [0, 4]
        default: return [0]
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        let healthy = [UInt8](repeating: 0, count: 10)
        return [
            ("healthy", healthy),
            // LE Read Buffer Size v2 says no LE buffers: Read Buffer Size follows.
            ("shared-buffers", [0, 0, 0, 0, 0, 4, 4, 0, 0, 0, 0, 0, 0]),
            ("refused-bd-addr", [0, 0, 3, 0x0C]),
            ("short-version", [0, 2, 4]),
            ("status-instead-of-complete", [0, 0, 0, 5, 1, 0x00]),
            // The resolving list size refused: ready all the same, size unknown.
            ("refused-resolving-list-size", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0x01]),
        ]
    }
}
