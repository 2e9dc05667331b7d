import BluetoothCore

/// Controller bring-up as an explicit sequence of steps, one command each:
///
///     Reset → Read Local Version Information → Read BD_ADDR
///       → Read Local Supported Commands → Read Local Supported Features
///       → LE Read Buffer Size [v2] (→ Read Buffer Size when LE has no buffers of its own)
///       → Set Event Mask → LE Set Event Mask → LE Read Local Supported Features → ready
///
/// Fed the result of the current step's command, it checks the status and
/// decodes the return parameters, and says what to send next, that the
/// controller is ready (with what was learned), or at which step and why
/// bring-up failed. No I/O and no time: the host sends the commands and
/// owns the timeout and the recovery.
public struct ControllerBringUp {
    public enum Step: Equatable, CustomStringConvertible {
        case reset
        case readLocalVersion
        case readBDAddr
        case readSupportedCommands
        case readLocalFeatures
        case leReadBufferSize
        case readBufferSize
        case setEventMask
        case leSetEventMask
        case leReadLocalFeatures

        public var description: String { opcode.description }

        /// The opcode of the step's command (LE Read Buffer Size v1 here;
        /// which version is sent depends on the supported commands).
        public var opcode: HCIOpcode {
            switch self {
            case .reset: return .reset
            case .readLocalVersion: return .readLocalVersionInformation
            case .readBDAddr: return .readBDAddr
            case .readSupportedCommands: return .readLocalSupportedCommands
            case .readLocalFeatures: return .readLocalSupportedFeatures
            case .leReadBufferSize: return .leReadBufferSize
            case .readBufferSize: return .readBufferSize
            case .setEventMask: return .setEventMask
            case .leSetEventMask: return .leSetEventMask
            case .leReadLocalFeatures: return .leReadLocalSupportedFeatures
            }
        }
    }

    public enum Progress: Equatable {
        /// Send this command; its result comes back through `completed`.
        case send(HCICommand)
        /// Bring-up is done: the controller takes LE commands.
        case ready(ControllerInfo)
        /// The step's command failed; bring-up must start over.
        case failed(Step, CommandFailure)
    }

    /// Every event the host handles; everything else stays masked so a
    /// controller does not wake us for nothing.
    public static let eventMask: UInt64 = 1 << 4 // Disconnection Complete
        | 1 << 7 // Encryption Change
        | 1 << 11 // Read Remote Version Information Complete
        | 1 << 15 // Hardware Error
        | 1 << 25 // Data Buffer Overflow
        | 1 << 47 // Encryption Key Refresh Complete
        | 1 << 61 // LE Meta

    public static let leEventMask: UInt64 = 1 << 0 // Connection Complete
        | 1 << 1 // Advertising Report
        | 1 << 2 // Connection Update Complete
        | 1 << 3 // Read Remote Features Complete
        | 1 << 4 // Long Term Key Request
        | 1 << 5 // Remote Connection Parameter Request
        | 1 << 6 // Data Length Change
        | 1 << 9 // Enhanced Connection Complete
        | 1 << 12 // Extended Advertising Report

    /// The step whose command is outstanding; nil once ready or failed.
    public private(set) var step: Step? = .reset
    /// What has been learned so far.
    public private(set) var controller = ControllerInfo()

    public init() {}

    /// The first command: HCI Reset.
    public var firstCommand: HCICommand { .reset() }

    /// The result of the current step's command.
    public mutating func completed(_ result: CommandResult) -> Progress {
        guard let current = step else {
            return .failed(.reset, .malformedReply(.reset, length: 0))
        }
        let opcode = command(for: current).opcode
        let outcome: Result<Step?, CommandFailure>
        switch current {
        case .reset, .setEventMask, .leSetEventMask:
            outcome = result.decode(StatusOnly.self, for: opcode).map { _ in after(current) }
        case .readLocalVersion:
            outcome = result.decode(LocalVersionInformation.self, for: opcode).map { v in
                controller.hciVersion = v.hciVersion
                controller.manufacturer = v.manufacturer
                controller.lmpSubversion = v.lmpSubversion
                return after(current)
            }
        case .readBDAddr:
            outcome = result.decode(ReadBDAddrResult.self, for: opcode).map { r in
                controller.address = r.address
                return after(current)
            }
        case .readSupportedCommands:
            outcome = result.decode(SupportedCommandsResult.self, for: opcode).map { r in
                controller.supportedCommands = r.mask
                return after(current)
            }
        case .readLocalFeatures:
            outcome = result.decode(FeaturesResult.self, for: opcode).map { r in
                controller.lmpFeatures = r.features
                return after(current)
            }
        case .leReadBufferSize:
            outcome = result.decode(LEReadBufferSizeResult.self, for: opcode).map { r in
                guard r.hasLEBuffers else { return .readBufferSize }
                setBuffers(length: Int(r.aclDataLength), count: Int(r.aclPacketCount))
                return .setEventMask
            }
        case .readBufferSize:
            outcome = result.decode(ReadBufferSizeResult.self, for: opcode).map { r in
                setBuffers(length: Int(r.aclDataLength), count: Int(r.aclPacketCount))
                return after(current)
            }
        case .leReadLocalFeatures:
            outcome = result.decode(FeaturesResult.self, for: opcode).map { r in
                controller.leFeatures = r.features
                return after(current)
            }
        }
        switch outcome {
        case .failure(let failure):
            step = nil
            return .failed(current, failure)
        case .success(let next?):
            step = next
            return .send(command(for: next))
        case .success(nil):
            step = nil
            return .ready(controller)
        }
    }

    /// The step that follows `step` when nothing decides otherwise.
    private func after(_ step: Step) -> Step? {
        switch step {
        case .reset: return .readLocalVersion
        case .readLocalVersion: return .readBDAddr
        case .readBDAddr: return .readSupportedCommands
        case .readSupportedCommands: return .readLocalFeatures
        case .readLocalFeatures: return .leReadBufferSize
        case .leReadBufferSize, .readBufferSize: return .setEventMask
        case .setEventMask: return .leSetEventMask
        case .leSetEventMask: return .leReadLocalFeatures
        case .leReadLocalFeatures: return nil
        }
    }

    private func command(for step: Step) -> HCICommand {
        switch step {
        case .reset: return .reset()
        case .setEventMask: return .setEventMask(ControllerBringUp.eventMask)
        case .leSetEventMask: return .leSetEventMask(ControllerBringUp.leEventMask)
        case .leReadBufferSize:
            return HCICommand(controller.supportsLEReadBufferSizeV2 ? .leReadBufferSizeV2 : .leReadBufferSize)
        default: return HCICommand(step.opcode)
        }
    }

    private mutating func setBuffers(length: Int, count: Int) {
        // A controller that reports nothing usable still gets the LE minimum.
        controller.aclDataLength = length >= 27 ? length : 27
        controller.aclBufferCount = max(1, count)
    }
}
