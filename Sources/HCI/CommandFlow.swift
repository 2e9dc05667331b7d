import BluetoothCore

/// How a command ended.
public enum CommandResult: Equatable {
    /// Command Complete: the return parameters (status first, for almost every command).
    case complete([UInt8])
    /// Command Status: the controller started (or refused) an asynchronous command.
    case pending(HCIStatus)
    /// No answer within the command timeout, or the controller was reset first.
    case notAnswered

    /// The status byte: the first return parameter, or the Command Status status.
    public var status: HCIStatus {
        switch self {
        case .complete(let p): return p.first.map { HCIStatus($0) } ?? .success
        case .pending(let s): return s
        case .notAnswered: return .unspecifiedError
        }
    }
}

/// Command flow control (Core Vol 4 Part E 4.4) as a value: the commands
/// waiting for a credit, those sent and not yet answered (each with whom
/// its answer is for), the controller's credits, and the timers that say
/// the controller is stuck. It decides what may go out and hands back the
/// purpose of each answer; the host routes it.
struct CommandFlow {
    struct Pending {
        var command: HCICommand
        var purpose: CommandPurpose
        /// Set when the command leaves through `Host.pollTransmit(now:)`.
        var deadline: Instant?
    }

    /// Why the controller is taken for stuck.
    enum Stuck {
        case unanswered(HCIOpcode)
        case noCredit
    }

    let timeoutMilliseconds: Int64
    private var credits = 1
    private var queue: [Pending] = []
    private var inFlight: [Pending] = []
    /// The controller left us with commands queued and no credit (since when).
    private var creditsExhausted = false
    private var creditsExhaustedAt: Instant?

    init(timeoutMilliseconds: Int64) {
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// Commands queued or sent and not yet answered.
    var isIdle: Bool { queue.isEmpty && inFlight.isEmpty }

    mutating func enqueue(_ command: HCICommand, for purpose: CommandPurpose) {
        queue.append(Pending(command: command, purpose: purpose))
    }

    /// The next queued command the controller has a credit for, now in
    /// flight; nil when there is none or no credit.
    mutating func next() -> HCICommand? {
        guard !queue.isEmpty, credits > 0 else {
            // Zero credits with nothing in flight is legal (a NOP will grant
            // more), but a controller that never does is as stuck as a silent one.
            creditsExhausted = !queue.isEmpty && inFlight.isEmpty
            if !creditsExhausted { creditsExhaustedAt = nil }
            return nil
        }
        let pending = queue.removeFirst()
        credits -= 1
        inFlight.append(pending)
        return pending.command
    }

    /// Command Complete or Command Status: Num_HCI_Command_Packets is the
    /// number of commands the controller takes from now on, not an
    /// increment. The purpose of the command answered, or nil when none
    /// with that opcode is in flight (or the opcode is 0, a bare credit).
    mutating func answered(_ opcode: HCIOpcode, credits: UInt8) -> CommandPurpose? {
        self.credits = Int(credits)
        guard opcode.value != 0 else { return nil }
        guard let index = inFlight.firstIndex(where: { $0.command.opcode == opcode }) else {
            Log.warning("hci", "answer for \(opcode), which was not sent; ignored")
            return nil
        }
        return inFlight.remove(at: index).purpose
    }

    /// The commands that left now start their answer timers: commands can
    /// be queued from anywhere, but only the transmit path knows the time.
    mutating func sent(now: Instant) {
        for i in inFlight.indices where inFlight[i].deadline == nil {
            inFlight[i].deadline = now.adding(milliseconds: timeoutMilliseconds)
        }
        if creditsExhausted && creditsExhaustedAt == nil { creditsExhaustedAt = now }
    }

    var nextDeadline: Instant? {
        @inline(__always) get {
            var deadline: Instant?
            for pending in inFlight { deadline = earliest(deadline, pending.deadline) }
            return earliest(deadline, creditsExhaustedAt?.adding(milliseconds: timeoutMilliseconds))
        }
    }

    /// Whether the controller has kept us waiting past the timeout.
    func stuck(now: Instant) -> Stuck? {
        if let late = inFlight.first(where: { $0.deadline.map { $0 <= now } ?? false }) {
            return .unanswered(late.command.opcode)
        }
        if let since = creditsExhaustedAt, since.adding(milliseconds: timeoutMilliseconds) <= now { return .noCredit }
        return nil
    }

    /// A reset controller forgets everything in flight: count afresh.
    mutating func restartCredits() { credits = 1 }

    /// Forgets every command; returns the purposes of those in flight,
    /// then those queued, which will never be answered.
    mutating func dropAll() -> [CommandPurpose] {
        let dropped = (inFlight + queue).map { $0.purpose }
        inFlight.removeAll()
        queue.removeAll()
        credits = 1
        creditsExhausted = false
        creditsExhaustedAt = nil
        return dropped
    }
}
