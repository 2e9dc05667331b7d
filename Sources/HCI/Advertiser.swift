import BluetoothCore

/// Legacy LE advertising as a state machine, sans-I/O. The owner says what
/// it wants (a payload, fast or slow, an audience, our identity address);
/// the advertiser works out, one command at a time, what the controller
/// must be told to get there, from what the controller has accepted so far:
///
///     [disable] → Set Random Address → [lists] → Set Advertising Parameters
///       → Set Advertising Data → Set Scan Response Data → enable
///
/// Only what differs is sent: going slow after the first 30 s is disable,
/// parameters, enable; a new name is data and scan response only.
///
/// Given several payloads (the Settings accessory and NotifBridge, say),
/// it takes them in turn, one per second: each turn is data and scan
/// response only, so the interval, the filter policy and the pause for a
/// connection stay as they are, and every controller can do it (legacy
/// PDUs, no advertising sets). A scanner sees each payload within a second
/// or two.
///
/// A peripheral connection pauses it: a legacy controller stops advertising
/// by itself when a connection comes up from it, so nothing is disabled
/// then. When the last peripheral link goes it starts again, fast. A
/// refused command (Command Disallowed while the controller is busy, say)
/// is logged and retried after a pause that doubles up to 16 s; a command
/// the controller never answers is the host's business (it resets the
/// controller, and `controllerReady` starts over).
///
/// The lists never keep it off: when the bonds do not fit the
/// controller's filter accept or resolving list, or the controller
/// refuses a list command, it advertises to anyone and `filtering` says
/// `.host` (the owner refuses strangers itself). A refused list is tried
/// again after a pause that doubles up to 16 s, except Memory Capacity
/// Exceeded: the list is full, and stays so for this audience. The bonds
/// themselves are the owner's and never touched.
///
/// The host owns one and feeds it; see `Host.startAdvertising`.
public struct Advertiser {
    public enum State: Equatable {
        /// Nobody asked for advertising, or the owner stopped it.
        case off
        /// Asked for, and the controller is not (yet) advertising: not
        /// ready, commands on their way, or waiting to retry after a refusal.
        case starting
        case advertising(AdvertisingInterval)
        /// A phone is connected to us as central.
        case pausedByConnection
    }

    /// Apple's Accessory Design Guidelines: 20 ms for at least 30 s.
    public static let fastPeriodMilliseconds: Int64 = 30_000
    static let firstRetryMilliseconds: Int64 = 500
    static let maxRetryMilliseconds: Int64 = 16_000
    /// How long each of several payloads stays on air before the next.
    public static let turnMilliseconds: Int64 = 1_000

    /// One command and what its success means.
    enum Step: Equatable {
        case identity(StaticRandomAddress)
        case enable(Bool)
        case parameters(HCICommand)
        case data([UInt8])
        case scanResponse([UInt8])
        /// A list command; the last of a program carries the audience it completes.
        case list(HCICommand, completes: AdvertisingAudience?)

        var command: HCICommand {
            switch self {
            case .identity(let a): return .leSetRandomAddress(a)
            case .enable(let on): return .leSetAdvertisingEnable(on)
            case .parameters(let c), .list(let c, _): return c
            case .data(let d): return .leSetAdvertisingData(d)
            case .scanResponse(let d): return .leSetScanResponseData(d)
            }
        }
    }

    /// What the controller has accepted.
    struct Applied: Equatable {
        var identity: StaticRandomAddress?
        var enabled = false
        var parameters: HCICommand?
        var data: [UInt8]?
        var scanResponse: [UInt8]?
        var lists: AdvertisingAudience?
    }

    // What the owner wants.
    public private(set) var payloads: [AdvertisingPayload] = []
    /// The index in `payloads` of the one on air (or going there).
    private var turn = 0
    /// When the next payload's turn comes (several payloads only).
    private var turnAt: Instant?
    public private(set) var identity: StaticRandomAddress?
    public private(set) var audience: AdvertisingAudience = .anyone
    /// Fast until then; slow once it has passed or is nil.
    private var fastUntil: Instant?

    // What the controller does.
    private var controller: ControllerInfo?
    private var peripheralLinks: [ConnectionHandle] = []
    private(set) var applied = Applied()
    private var inFlight: Step?
    private var listProgram: [HCICommand] = []
    private var retryAt: Instant?
    private var retryDelay = Advertiser.firstRetryMilliseconds
    /// The audience whose lists the controller refused, and when to try
    /// them again (nil: not for this audience, the controller's list is full).
    private var refusedLists: (audience: AdvertisingAudience, retryAt: Instant?)?
    private var listRetryDelay = Advertiser.firstRetryMilliseconds

    public init() {}

    /// The payload on air now, or that is going there.
    public var payload: AdvertisingPayload? { payloads.isEmpty ? nil : payloads[turn] }

    public var state: State {
        guard payload != nil else { return .off }
        guard peripheralLinks.isEmpty else { return .pausedByConnection }
        guard applied.enabled, let interval = appliedInterval else { return .starting }
        return .advertising(interval)
    }

    /// Who enforces the audience on this controller (`.host` also before
    /// bring-up, when nothing is known: the owner checks until then).
    public var filtering: AudienceFiltering {
        guard let controller else { return audience == .anyone ? .none : .host }
        if audience != .anyone, let refused = refusedLists, refused.audience == audience { return .host }
        return controller.filtering(for: audience)
    }

    /// The interval the owner's wishes call for now.
    public var interval: AdvertisingInterval { fastUntil == nil ? .slow : .fast }

    /// While the resolving list is being programmed the controller must not
    /// scan (7.8.44): the host pauses its scan until this is false again.
    /// Not while waiting to retry a refusal: scanning goes on meanwhile.
    public var needsScanningPaused: Bool {
        guard let controller, controller.supportsAddressResolution,
              case .bonded(let peers, _) = audience, peers.contains(where: { $0.irk != nil }) else { return false }
        if case .list? = inFlight { return true }
        return retryAt == nil && listsPending
    }

    /// The audience needs lists the controller does not have yet.
    private var listsPending: Bool {
        payload != nil && peripheralLinks.isEmpty && filtering == .controller && applied.lists != audience
    }

    // MARK: - The owner's wishes

    /// Advertises `payload`: fast for 30 s from `now`, then slow. A new
    /// payload while advertising replaces the data without a pause.
    public mutating func start(_ payload: AdvertisingPayload, now: Instant) {
        start([payload], now: now)
    }

    /// Advertises each of `payloads` in turn, `turnMilliseconds` each, as
    /// `start(_:now:)` does one. Empty: stops.
    public mutating func start(_ payloads: [AdvertisingPayload], now: Instant) {
        guard !payloads.isEmpty else { return stop() }
        if self.payloads.isEmpty { fastUntil = now.adding(milliseconds: Advertiser.fastPeriodMilliseconds) }
        if payloads != self.payloads { turn = 0 }
        self.payloads = payloads
        turnAt = payloads.count > 1 ? (turnAt ?? now.adding(milliseconds: Advertiser.turnMilliseconds)) : nil
    }

    /// Goes to the slow interval at once (a phone of ours is around).
    public mutating func slowDown() { fastUntil = nil }

    public mutating func stop() {
        payloads = []
        turn = 0
        turnAt = nil
        fastUntil = nil
    }

    /// Our static random identity, used as the advertising address.
    public mutating func setIdentity(_ address: StaticRandomAddress) { identity = address }

    public mutating func setAudience(_ audience: AdvertisingAudience) {
        guard audience != self.audience else { return }
        self.audience = audience
        listProgram = []
        refusedLists = nil
        listRetryDelay = Advertiser.firstRetryMilliseconds
        if let controller, let why = controller.hostFilteringReason(for: audience) {
            Log.info("adv", why + ": advertising to anyone, strangers are refused by the head unit")
        }
    }

    // MARK: - What the controller did

    mutating func controllerReady(_ info: ControllerInfo, now: Instant) {
        controller = info
        applied = Applied()
        inFlight = nil
        listProgram = []
        retryAt = nil
        retryDelay = Advertiser.firstRetryMilliseconds
        refusedLists = nil
        listRetryDelay = Advertiser.firstRetryMilliseconds
        peripheralLinks = []
        if payload != nil { fastUntil = now.adding(milliseconds: Advertiser.fastPeriodMilliseconds) }
        if let why = info.hostFilteringReason(for: audience) {
            Log.info("adv", why + ": advertising to anyone, strangers are refused by the head unit")
        }
    }

    /// The controller is gone (reset, transport closed): it remembers nothing.
    mutating func controllerLost() {
        controller = nil
        applied = Applied()
        inFlight = nil
        listProgram = []
        retryAt = nil
        refusedLists = nil
        peripheralLinks = []
    }

    /// A connection came up from our advertising: the controller has
    /// stopped advertising by itself.
    mutating func peripheralConnected(_ handle: ConnectionHandle) {
        if !peripheralLinks.contains(handle) { peripheralLinks.append(handle) }
        applied.enabled = false
        fastUntil = nil
    }

    mutating func peripheralDisconnected(_ handle: ConnectionHandle, now: Instant) {
        guard let index = peripheralLinks.firstIndex(of: handle) else { return }
        peripheralLinks.remove(at: index)
        if peripheralLinks.isEmpty, payload != nil {
            fastUntil = now.adding(milliseconds: Advertiser.fastPeriodMilliseconds)
            if payloads.count > 1 { turnAt = now.adding(milliseconds: Advertiser.turnMilliseconds) }
        }
    }

    // MARK: - Driving it

    /// When `handleTimeout` is due: the end of the fast period, the next
    /// payload's turn or a retry.
    public var nextDeadline: Instant? {
        let advertising = payload != nil && peripheralLinks.isEmpty
        let listRetry = advertising ? refusedLists?.retryAt : nil
        return earliest(earliest(earliest(advertising ? fastUntil : nil, advertising ? turnAt : nil), retryAt), listRetry)
    }

    mutating func handleTimeout(now: Instant) {
        if let at = refusedLists?.retryAt, at <= now {
            refusedLists = nil
            Log.info("adv", "trying the controller's lists again")
        }
        if let at = turnAt, at <= now, payloads.count > 1, peripheralLinks.isEmpty {
            turn = (turn + 1) % payloads.count
            turnAt = now.adding(milliseconds: Advertiser.turnMilliseconds)
        }
        if let until = fastUntil, until <= now, payload != nil {
            fastUntil = nil
            Log.info("adv", "no phone in \(Advertiser.fastPeriodMilliseconds / 1000) s; advertising every \(AdvertisingInterval.slow) from now on")
        }
    }

    /// The next command to send, or nil: nothing to change, a command still
    /// unanswered, the controller not ready, or a retry not yet due.
    mutating func nextCommand(now: Instant) -> HCICommand? {
        guard controller != nil, inFlight == nil else { return nil }
        if let at = retryAt {
            guard at <= now else { return nil }
            retryAt = nil
        }
        guard let step = nextStep() else { return nil }
        inFlight = step
        return step.command
    }

    /// The result of the command `nextCommand` returned last.
    mutating func completed(_ result: CommandResult, now: Instant) {
        guard let step = inFlight else { return }
        inFlight = nil
        // Unanswered: the host is resetting the controller; controllerLost
        // and controllerReady follow and start over.
        if result == .notAnswered { return }
        guard result.status.isSuccess else {
            listProgram = []
            if case .list = step {
                return listsRefused(step.command.opcode, result.status, now: now)
            }
            Log.warning("adv", "\(step.command.opcode) refused: \(result.status); trying again in \(retryDelay) ms")
            retryAt = now.adding(milliseconds: retryDelay)
            retryDelay = min(retryDelay * 2, Advertiser.maxRetryMilliseconds)
            return
        }
        retryDelay = Advertiser.firstRetryMilliseconds
        switch step {
        case .identity(let a): applied.identity = a
        case .enable(let on):
            applied.enabled = on
            if on, let interval = appliedInterval {
                Log.info("adv", "advertising every \(interval) as \(identity.map { $0.description } ?? "the public address")")
            } else if !on {
                Log.info("adv", "advertising stopped")
            }
        case .parameters(let c): applied.parameters = c
        case .data(let d): applied.data = d
        case .scanResponse(let d): applied.scanResponse = d
        case .list(_, let audience):
            if let audience {
                applied.lists = audience
                listRetryDelay = Advertiser.firstRetryMilliseconds
                if case .bonded(let peers, _) = audience {
                    Log.info("adv", "the controller's lists hold the \(peers.count) bonded phone(s): it ignores strangers itself")
                }
            }
        }
    }

    /// The controller refused a list command: advertising goes on for
    /// anyone (the owner filters), and the lists are tried again later
    /// unless the controller said they are full.
    private mutating func listsRefused(_ opcode: HCIOpcode, _ status: HCIStatus, now: Instant) {
        applied.lists = nil
        if status == .memoryCapacityExceeded {
            refusedLists = (audience, nil)
            Log.warning("adv", "\(opcode) refused: \(status); the controller's list is full, advertising to anyone"
                + " and strangers are refused by the head unit (no bond is lost)")
        } else {
            refusedLists = (audience, now.adding(milliseconds: listRetryDelay))
            Log.warning("adv", "\(opcode) refused: \(status); advertising to anyone meanwhile (strangers are refused"
                + " by the head unit), the lists again in \(listRetryDelay) ms")
            listRetryDelay = min(listRetryDelay * 2, Advertiser.maxRetryMilliseconds)
        }
    }

    private var appliedInterval: AdvertisingInterval? {
        guard let p = applied.parameters?.parameters, p.count >= 2 else { return nil }
        return AdvertisingInterval(units: UInt16(p[0]) | UInt16(p[1]) << 8)
    }

    private var desiredParameters: HCICommand {
        .leSetAdvertisingParameters(interval: interval, ownAddressType: identity == nil ? .public : .random,
                                    filterPolicy: filtering == .controller ? .connectionsFromAcceptList : .anyone)
    }

    /// The first difference between what is wanted and what the controller
    /// has, as a command. Whatever needs advertising off turns it off first.
    private mutating func nextStep() -> Step? {
        if let identity, applied.identity != identity {
            return applied.enabled ? .enable(false) : .identity(identity)
        }
        guard let payload, peripheralLinks.isEmpty else {
            return applied.enabled ? .enable(false) : nil
        }
        if listsPending, let controller {
            if applied.enabled { return .enable(false) }
            if listProgram.isEmpty { listProgram = controller.listProgram(for: audience) }
            let command = listProgram.removeFirst()
            return .list(command, completes: listProgram.isEmpty ? audience : nil)
        }
        let parameters = desiredParameters
        if applied.parameters != parameters {
            return applied.enabled ? .enable(false) : .parameters(parameters)
        }
        if applied.data != payload.advertisingData { return .data(payload.advertisingData) }
        if applied.scanResponse != payload.scanResponse { return .scanResponse(payload.scanResponse) }
        return applied.enabled ? nil : .enable(true)
    }
}
