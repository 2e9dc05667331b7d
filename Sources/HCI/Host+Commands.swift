import BluetoothCore

/// Whom a command's completion is for, kept as a value beside the command
/// (in `CommandFlow`) instead of a closure: the caller's tag, handed back
/// in `HostEvent.commandCompleted`, or one of the host's own follow-ups,
/// which `Host.completed(_:_:)` routes to the job it belongs to.
enum CommandPurpose {
    /// Nobody waits for it.
    case none
    /// The caller's: `.commandCompleted(tag, result)`.
    case caller(CommandTag)
    /// `readEncryptionKeySize`: `.encryptionKeySize` for the link.
    case encryptionKeySize(ConnectionHandle)
    /// A step of the bring-up numbered `generation`.
    case bringUp(generation: Int)
    case scanEnable
    case connect(BluetoothAddress)
    /// The advertiser's command in flight.
    case advertiser
    case dataLength(ConnectionHandle)
    case longTermKeyReply(ConnectionHandle, negative: Bool)
}

extension Host {
    /// Queues a command; it goes out when the controller has a command
    /// credit. With a tag, its completion comes back as
    /// `.commandCompleted(tag, result)`; without, nobody hears of it but
    /// the log (and `.commandFailed` when the controller refuses it). A
    /// command the controller does not list in its Supported_Commands
    /// (`SupportedCommand`) is not sent at all: it completes at once with
    /// the Unknown HCI Command a controller would have answered.
    public func send(_ command: HCICommand, tag: CommandTag? = nil) {
        send(command, for: tag.map { .caller($0) } ?? .none)
    }

    /// The key size of an encrypted link, which decides whether it may be
    /// used at all (KNOB): `.encryptionKeySize` follows. A reply for
    /// another link counts as malformed.
    public func readEncryptionKeySize(_ handle: ConnectionHandle) {
        send(.readEncryptionKeySize(handle), for: .encryptionKeySize(handle))
    }

    /// Commands queued or sent and not yet answered.
    public var hasCommandsOutstanding: Bool { !commands.isIdle }

    func send(_ command: HCICommand, for purpose: CommandPurpose) {
        if isReady, let checked = SupportedCommand(opcode: command.opcode), !controller.supports(checked) {
            Log.warning("hci", "\(command.opcode) not sent: the controller does not support it")
            return completed(purpose, .complete([HCIStatus.unknownCommand.code]))
        }
        commands.enqueue(command, for: purpose)
        pumpCommands()
    }

    func pumpCommands() {
        while let command = commands.next() { transmit(command.packet) }
    }

    /// Command Complete or Command Status for `opcode`.
    func commandAnswered(opcode: HCIOpcode, credits: UInt8, result: CommandResult) {
        if let purpose = commands.answered(opcode, credits: credits) {
            completed(purpose, result)
        }
        pumpCommands()
    }

    /// Where a command's result goes: the one switch over every purpose.
    func completed(_ purpose: CommandPurpose, _ result: CommandResult) {
        switch purpose {
        case .none:
            break
        case .caller(let tag):
            emit(.commandCompleted(tag, result))
        case .encryptionKeySize(let handle):
            emit(.encryptionKeySize(handle: handle, encryptionKeySize(of: handle, result)))
        case .bringUp(let generation):
            bringUpStepCompleted(result, generation: generation)
        case .scanEnable:
            if result.status.isSuccess { isScanning = true }
        case .connect(let peer):
            connectCompleted(peer, result)
        case .advertiser:
            advertiser.completed(result, now: now)
            pumpAdvertiser()
        case .dataLength(let handle):
            if result.status != .success { Log.debug("hci", "LE Set Data Length on \(handle): \(result.status)") }
        case let .longTermKeyReply(handle, negative):
            if !result.status.isSuccess {
                Log.warning("hci", "LTK Request \(negative ? "Negative " : "")Reply on \(handle): \(result.status)")
            }
        }
    }

    private func encryptionKeySize(of handle: ConnectionHandle,
                                   _ result: CommandResult) -> Result<ReadEncryptionKeySizeResult, CommandFailure> {
        let decoded = result.decode(ReadEncryptionKeySizeResult.self, for: .readEncryptionKeySize)
        switch decoded {
        case .success(let reply) where reply.handle != handle:
            Log.warning("hci", "Read_Encryption_Key_Size for \(handle) answered for \(reply.handle)")
            return .failure(.malformedReply(.readEncryptionKeySize, length: 4))
        case .failure(let failure):
            Log.warning("hci", "Read_Encryption_Key_Size on \(handle): \(failure)")
        case .success:
            break
        }
        return decoded
    }
}
