import BluetoothCore

/// Controller bring-up as an explicit sequence of steps, one command each:
///
///     Reset → Read Local Version Information → Read BD_ADDR
///       → Read Local Supported Commands → Read Local Supported Features
///       → LE Read Buffer Size [v2] (→ Read Buffer Size when LE has no buffers of its own)
///       → Set Event Mask → LE Set Event Mask → LE Read Local Supported Features
///       [→ LE Read Filter Accept List Size] [→ LE Read Resolving List Size]
///       [→ LE Read Number of Supported Advertising Sets] → ready
///
/// The bracketed steps run only when Supported_Commands lists their
/// command (the set count also needs the extended scanning and initiating
/// commands, see `wanted`); a controller that refuses one of them still comes up, with
/// that size unknown (nil), since nothing there is needed to work.
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
        case readFilterAcceptListSize
        case readResolvingListSize
        case readAdvertisingSets

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
            case .readFilterAcceptListSize: return .leReadFilterAcceptListSize
            case .readResolvingListSize: return .leReadResolvingListSize
            case .readAdvertisingSets: return .leReadNumberOfSupportedAdvertisingSets
            }
        }

        /// The checked command a step needs, for the optional steps.
        var needs: SupportedCommand? {
            switch self {
            case .readFilterAcceptListSize: return .leReadFilterAcceptListSize
            case .readResolvingListSize: return .leReadResolvingListSize
            case .readAdvertisingSets: return .leReadNumberOfSupportedAdvertisingSets
            default: return nil
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

    /// The result of the current step's command. A result after the end
    /// (ready or failed) answers nothing: it fails at Reset, so whoever fed
    /// it starts over rather than trusting the controller.
    public mutating func completed(_ result: CommandResult) -> Progress {
        guard let current = step else {
            return .failed(.reset, .malformedReply(.reset, length: 0))
        }
        let outcome: Result<Step?, CommandFailure>
        switch current {
        case .reset, .setEventMask, .leSetEventMask:
            outcome = learn(result, StatusOnly.self, at: current) { _, _ in }
        case .readLocalVersion:
            outcome = learn(result, LocalVersionInformation.self, at: current) { c, v in
                (c.hciVersion, c.manufacturer, c.lmpSubversion) = (v.hciVersion, v.manufacturer, v.lmpSubversion)
            }
        case .readBDAddr:
            outcome = learn(result, ReadBDAddrResult.self, at: current) { $0.address = $1.address }
        case .readSupportedCommands:
            outcome = learn(result, SupportedCommandsResult.self, at: current) { $0.supportedCommands = $1.mask }
        case .readLocalFeatures:
            outcome = learn(result, FeaturesResult.self, at: current) { $0.lmpFeatures = $1.features }
        case .leReadBufferSize:
            outcome = result.decode(LEReadBufferSizeResult.self, for: command(for: current).opcode).map { r in
                // No LE buffers of its own: LE shares the BR/EDR ones.
                guard r.hasLEBuffers else { return .readBufferSize }
                ControllerBringUp.setBuffers(&controller, length: Int(r.aclDataLength), count: Int(r.aclPacketCount))
                return after(current)
            }
        case .readBufferSize:
            outcome = learn(result, ReadBufferSizeResult.self, at: current) {
                ControllerBringUp.setBuffers(&$0, length: Int($1.aclDataLength), count: Int($1.aclPacketCount))
            }
        case .leReadLocalFeatures:
            outcome = learn(result, FeaturesResult.self, at: current) { $0.leFeatures = $1.features }
        case .readFilterAcceptListSize:
            outcome = learnSize(result, at: current) { $0.filterAcceptListSize = $1 }
        case .readResolvingListSize:
            outcome = learnSize(result, at: current) { $0.resolvingListSize = $1 }
        case .readAdvertisingSets:
            outcome = learnSize(result, at: current) { $0.advertisingSets = $1 }
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

    /// The step that follows `step` when nothing decides otherwise,
    /// skipping those whose command the controller does not list.
    private func after(_ step: Step) -> Step? {
        var next = following(step)
        while let candidate = next, !wanted(candidate) {
            next = following(candidate)
        }
        return next
    }

    /// Whether an optional step runs: its command is listed, and the set
    /// count is asked only where the head unit will drive the sets.
    /// LE Read Number of Supported Advertising Sets is itself an extended
    /// command (Core Vol 4 Part E 3.1.1): asking a controller that cannot
    /// also scan and connect the extended way would commit it to the
    /// extended form and have it refuse the legacy commands the head unit
    /// uses there (LECommandForm).
    private func wanted(_ step: Step) -> Bool {
        guard let needed = step.needs else { return true }
        if step == .readAdvertisingSets, !controller.supportsExtendedScanningAndInitiating { return false }
        return controller.supports(needed)
    }

    private func following(_ step: Step) -> Step? {
        switch step {
        case .reset: return .readLocalVersion
        case .readLocalVersion: return .readBDAddr
        case .readBDAddr: return .readSupportedCommands
        case .readSupportedCommands: return .readLocalFeatures
        case .readLocalFeatures: return .leReadBufferSize
        case .leReadBufferSize, .readBufferSize: return .setEventMask
        case .setEventMask: return .leSetEventMask
        case .leSetEventMask: return .leReadLocalFeatures
        case .leReadLocalFeatures: return .readFilterAcceptListSize
        case .readFilterAcceptListSize: return .readResolvingListSize
        case .readResolvingListSize: return .readAdvertisingSets
        case .readAdvertisingSets: return nil
        }
    }

    private func command(for step: Step) -> HCICommand {
        switch step {
        case .reset: return .reset()
        case .setEventMask: return .setEventMask(ControllerBringUp.eventMask)
        case .leSetEventMask: return .leSetEventMask(ControllerBringUp.leEventMask)
        case .leReadBufferSize:
            return HCICommand(controller.supports(.leReadBufferSizeV2) ? .leReadBufferSizeV2 : .leReadBufferSize)
        default: return HCICommand(step.opcode)
        }
    }

    /// Decodes the step's return parameters into what is known about the
    /// controller, and names the step after it.
    private mutating func learn<R: CommandReturn>(_ result: CommandResult, _: R.Type, at step: Step,
                                                  _ apply: (inout ControllerInfo, R) -> Void) -> Result<Step?, CommandFailure> {
        result.decode(R.self, for: command(for: step).opcode).map { r in
            apply(&controller, r)
            return after(step)
        }
    }

    /// An optional size: learned when the controller answers, left
    /// unknown (logged) when it refuses or answers nonsense.
    private mutating func learnSize(_ result: CommandResult, at step: Step,
                                    _ apply: (inout ControllerInfo, Int) -> Void) -> Result<Step?, CommandFailure> {
        switch result.decode(CountResult.self, for: step.opcode) {
        case .success(let r): apply(&controller, Int(r.count))
        case .failure(.notAnswered): return .failure(.notAnswered)
        case .failure(let failure): Log.warning("hci", "\(step.opcode): \(failure); size unknown")
        }
        return .success(after(step))
    }

    private static func setBuffers(_ controller: inout ControllerInfo, length: Int, count: Int) {
        // A controller that reports nothing usable still gets the LE minimum.
        controller.aclDataLength = length >= 27 ? length : 27
        controller.aclBufferCount = max(1, count)
    }
}
