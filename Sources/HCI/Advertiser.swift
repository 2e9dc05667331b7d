import BluetoothCore

/// Connectable advertising as a state machine, sans-I/O. The owner says
/// what it wants (an `Advertisement`, fast or slow, an audience, our
/// identity address); the advertiser works out, one command at a time,
/// what the controller must be told to get there, from what the controller
/// has accepted so far:
///
///     [disable] → random address → [lists] → parameters → data
///       → scan response → enable
///
/// (with sets, each set's random address follows its parameters).
///
/// Only what differs is sent: going slow after the first 30 s is disable,
/// parameters, enable.
///
/// How depends on the controller's command form (`LECommandForm`). One
/// whose Supported Commands list the advertising-set commands and the
/// extended scanning and initiating commands has said at bring-up how many
/// sets it has (LE Read Number of Supported Advertising Sets, in
/// `ControllerInfo`); with enough for the advertisement's
/// payloads (the Settings accessory and NotifBridge: two) each payload
/// gets a set of its own, every set sending legacy ADV_IND PDUs from our
/// identity address, all enabled together. With one set, or legacy
/// advertising only, the advertisement's combined payload goes on air
/// alone (through the one set, or the legacy commands). The
/// advertisement's `extra` payload (GhostDrop's) gets a set of its own
/// where the controller has one more; otherwise its advertising data and
/// the first payload's take turns on the first set, 2 s the first's and
/// 1 s the extra's (the scan response, so the name, stays the first's):
/// an app scanning for the extra's service hears it within 3 s, and
/// Settings, whose rows stay listed between reports, finds the head unit
/// within 3 s too. Either way a scanner hears one name: every payload
/// carries the same. A controller
/// with sets but without extended scanning and initiating gets the legacy
/// commands and the combined payload: the host scans and connects the
/// legacy way there, and Core Vol 4 Part E 3.1.1 lets a controller refuse
/// legacy and set commands mixed.
///
/// A secure peripheral link pauses it. A connection alone does not: the
/// controller stops the advertising (or the set) the connection came from
/// by itself, and it is enabled again, so that a device that connects and
/// never pairs cannot keep the owner's phone out. Once the owner says a
/// link is secure (`peripheralSecured`: encrypted with a bond, or paired)
/// every set is disabled but the first, which keeps the extra payload's
/// advertising data alone (GhostDrop's service: its sender on that phone
/// finds a receiver only by scanning) under the first payload's scan
/// response, at the slow interval, until the last secure link goes; then
/// everything starts again, fast. Without an extra, nothing advertises
/// meanwhile. A refused command (Command Disallowed while the controller
/// is busy, or from one that cannot advertise while it is connected as
/// peripheral) is logged and retried after a pause that doubles up to
/// 16 s, and at once when a peripheral link goes (while a secure link is
/// up, only then: not every 16 s for a whole drive); a command the controller
/// never answers is the host's business (it resets the controller, and
/// `controllerReady` starts over).
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
        /// A phone connected to us as central and its link is secure.
        case pausedByConnection
    }

    /// How the controller is told what to advertise.
    public enum Commands: Equatable {
        /// LE Set Advertising Parameters / Data / Scan Response Data / Enable.
        case legacy
        /// Advertising sets with legacy PDUs; the controller has this many.
        case sets(Int)
    }

    /// Apple's Accessory Design Guidelines: 20 ms for at least 30 s.
    public static let fastPeriodMilliseconds: Int64 = 30_000
    static let firstRetryMilliseconds: Int64 = 500
    static let maxRetryMilliseconds: Int64 = 16_000
    /// Where the extra payload takes turns: how long each advertising data
    /// stays on air. An iPhone scanning in the foreground hears a few
    /// advertising events within the extra's turn even at the slow
    /// interval (152.5 ms); one report is all a scan filter needs.
    static let firstTurnMilliseconds: Int64 = 2_000
    static let extraTurnMilliseconds: Int64 = 1_000

    /// Interval, own address and filter policy: the same for every set.
    struct Parameters: Equatable {
        var interval: AdvertisingInterval
        var ownAddressType: OwnAddressType
        var filterPolicy: AdvertisingFilterPolicy
    }

    /// One command and what its success means. `set` is the advertising
    /// set (always 0 with legacy commands).
    enum Step: Equatable {
        case identity(StaticRandomAddress, set: Int)
        case enable(Bool)
        case parameters(Parameters, set: Int)
        case data([UInt8], set: Int)
        case scanResponse([UInt8], set: Int)
        /// A list command; the last of a program carries the audience it completes.
        case list(HCICommand, completes: AdvertisingAudience?)
    }

    /// What the controller has accepted, per set.
    struct Applied: Equatable {
        var identity: [Int: StaticRandomAddress] = [:]
        /// How many sets are (or may still be) on air; 0 or 1 with legacy commands.
        var enabledSets = 0
        /// A connection ended one of several enabled sets: the others
        /// still advertise, that one needs enabling again.
        var setEndedByConnection = false
        var parameters: [Int: Parameters] = [:]
        var data: [Int: [UInt8]] = [:]
        var scanResponse: [Int: [UInt8]] = [:]
        var lists: AdvertisingAudience?
    }

    // What the owner wants.
    public private(set) var advertisement: Advertisement?
    public private(set) var identity: StaticRandomAddress?
    public private(set) var audience: AdvertisingAudience = .anyone
    /// Fast until then; slow once it has passed or is nil.
    private var fastUntil: Instant?

    // What the controller does.
    private var controller: ControllerInfo?
    /// Nil until the controller is ready.
    public private(set) var commands: Commands?
    private var peripheralLinks: [ConnectionHandle] = []
    /// The peripheral links the owner said are secure: while there is one,
    /// nobody else needs to connect.
    private var securedLinks: [ConnectionHandle] = []
    private(set) var applied = Applied()
    private var inFlight: Step?
    private var listProgram: [HCICommand] = []
    private var retryAt: Instant?
    private var retryDelay = Advertiser.firstRetryMilliseconds
    /// The audience whose lists the controller refused, and when to try
    /// them again (nil: not for this audience, the controller's list is full).
    private var refusedLists: (audience: AdvertisingAudience, retryAt: Instant?)?
    private var listRetryDelay = Advertiser.firstRetryMilliseconds
    /// Where the extra payload takes turns: whether it is its turn, and
    /// when the turn ends (nil until advertising first starts).
    private var extraTurn = false
    private var turnEndsAt: Instant?
    /// The controller refused a command while a secure link was up: the
    /// extra stays off the air until a peripheral link goes.
    private var refusedWhileSecured = false

    public init() {}

    /// The payloads on air now (or going there), one per set: the
    /// advertisement's sets (and its extra) where the controller has enough
    /// of them, its combined payload otherwise (and until the controller
    /// is known); during the extra's turn, the first with the extra's
    /// advertising data.
    public var payloads: [AdvertisingPayload] {
        guard let shape else { return [] }
        guard securedLinks.isEmpty else {
            guard let extra = advertisement?.extra, !refusedWhileSecured else { return [] }
            return [shape.payloads[0].advertising(extra.advertisingData)]
        }
        guard extraTurn, let turn = shape.turn else { return shape.payloads }
        return [shape.payloads[0].advertising(turn)] + shape.payloads.dropFirst()
    }

    /// The advertisement's shape on this controller's sets (legacy: one).
    private var shape: (payloads: [AdvertisingPayload], turn: [UInt8]?)? {
        guard let advertisement else { return nil }
        if case .sets(let count)? = commands { return advertisement.shape(sets: count) }
        return advertisement.shape(sets: 1)
    }

    /// The extra payload has no set of its own and advertising is not paused.
    private var takingTurns: Bool { securedLinks.isEmpty && shape?.turn != nil }

    private mutating func resetTurns() {
        extraTurn = false
        turnEndsAt = nil
    }

    /// Starts the first payload's turn, when the extra payload has no set of
    /// its own and the turns are not running yet.
    private mutating func startTurns(now: Instant) {
        guard turnEndsAt == nil, takingTurns else { return }
        turnEndsAt = now.adding(milliseconds: Advertiser.firstTurnMilliseconds)
        Log.info("adv", "no advertising set for the extra payload: its advertising data takes turns with the first"
            + " payload's, \(Advertiser.extraTurnMilliseconds) ms every \(Advertiser.firstTurnMilliseconds + Advertiser.extraTurnMilliseconds) ms")
    }

    public var state: State {
        guard advertisement != nil else { return .off }
        guard securedLinks.isEmpty else { return .pausedByConnection }
        guard applied.enabledSets > 0, !applied.setEndedByConnection, let interval = applied.parameters[0]?.interval else { return .starting }
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
        advertisement != nil && securedLinks.isEmpty && filtering == .controller && applied.lists != audience
    }

    // MARK: - The owner's wishes

    /// Advertises `payload` alone, as `start(_ advertisement:now:)` does.
    public mutating func start(_ payload: AdvertisingPayload, now: Instant) {
        start(Advertisement(payload), now: now)
    }

    /// Advertises `advertisement`: fast for 30 s from `now`, then slow. A
    /// new one while advertising replaces the data without a pause.
    public mutating func start(_ advertisement: Advertisement, now: Instant) {
        if self.advertisement == nil { fastUntil = now.adding(milliseconds: Advertiser.fastPeriodMilliseconds) }
        self.advertisement = advertisement
        // An extra that takes turns on sets already on air: the turns start now.
        if applied.enabledSets > 0 { startTurns(now: now) }
    }

    /// Goes to the slow interval at once (a phone of ours is around).
    public mutating func slowDown() { fastUntil = nil }

    public mutating func stop() {
        advertisement = nil
        fastUntil = nil
        resetTurns()
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
        commands = Advertiser.commands(for: info)
        applied = Applied()
        resetTurns()
        inFlight = nil
        listProgram = []
        retryAt = nil
        retryDelay = Advertiser.firstRetryMilliseconds
        refusedLists = nil
        listRetryDelay = Advertiser.firstRetryMilliseconds
        peripheralLinks = []
        securedLinks = []
        refusedWhileSecured = false
        if advertisement != nil { fastUntil = now.adding(milliseconds: Advertiser.fastPeriodMilliseconds) }
        if let why = info.hostFilteringReason(for: audience) {
            Log.info("adv", why + ": advertising to anyone, strangers are refused by the head unit")
        }
    }

    /// The controller is gone (reset, transport closed): it remembers nothing.
    mutating func controllerLost() {
        controller = nil
        commands = nil
        applied = Applied()
        resetTurns()
        inFlight = nil
        listProgram = []
        retryAt = nil
        refusedLists = nil
        peripheralLinks = []
        securedLinks = []
        refusedWhileSecured = false
    }

    /// A connection came up from our advertising: the controller has
    /// stopped the advertising (or the set) it came from by itself; other
    /// sets still advertise. Until a link is secure it is all enabled
    /// again, for the owner's phone.
    mutating func peripheralConnected(_ handle: ConnectionHandle) {
        if !peripheralLinks.contains(handle) { peripheralLinks.append(handle) }
        if applied.enabledSets <= 1 { applied.enabledSets = 0 } else { applied.setEndedByConnection = true }
    }

    /// The owner says a peripheral link is secure: the phone is in, and
    /// advertising pauses until its link goes, but for the extra payload.
    mutating func peripheralSecured(_ handle: ConnectionHandle) {
        guard peripheralLinks.contains(handle), !securedLinks.contains(handle) else { return }
        securedLinks.append(handle)
        fastUntil = nil
    }

    /// A peripheral link went: a refusal waiting for its retry (a
    /// controller that cannot advertise while connected) is tried at once,
    /// and when the last secure link went, fast again.
    mutating func peripheralDisconnected(_ handle: ConnectionHandle, now: Instant) {
        guard let index = peripheralLinks.firstIndex(of: handle) else { return }
        peripheralLinks.remove(at: index)
        retryAt = nil
        refusedWhileSecured = false
        retryDelay = Advertiser.firstRetryMilliseconds
        var wasSecured = false
        if let secured = securedLinks.firstIndex(of: handle) {
            securedLinks.remove(at: secured)
            wasSecured = true
        }
        if advertisement != nil, securedLinks.isEmpty, wasSecured || peripheralLinks.isEmpty {
            fastUntil = now.adding(milliseconds: Advertiser.fastPeriodMilliseconds)
        }
    }

    // MARK: - Driving it

    /// When `handleTimeout` is due: the end of the fast period or a retry.
    /// Inlined into `Host.nextDeadline`, which reads the few fields it needs
    /// where they lie; called, the whole advertiser is copied out first.
    public var nextDeadline: Instant? {
        @inline(__always) get {
            let advertising = advertisement != nil && securedLinks.isEmpty
            let listRetry = advertising ? refusedLists?.retryAt : nil
            let turn = advertising && takingTurns ? turnEndsAt : nil
            return earliest(earliest(earliest(advertising ? fastUntil : nil, retryAt), listRetry), turn)
        }
    }

    mutating func handleTimeout(now: Instant) {
        if let at = refusedLists?.retryAt, at <= now {
            refusedLists = nil
            Log.info("adv", "trying the controller's lists again")
        }
        if let until = fastUntil, until <= now, advertisement != nil {
            fastUntil = nil
            Log.info("adv", "no phone in \(Advertiser.fastPeriodMilliseconds / 1000) s; advertising every \(AdvertisingInterval.slow) from now on")
        }
        // The other advertising data's turn: nextStep sends it, without
        // disabling (a set's or legacy data may change while on air).
        if let at = turnEndsAt, at <= now, advertisement != nil, takingTurns {
            extraTurn.toggle()
            turnEndsAt = now.adding(milliseconds: extraTurn ? Advertiser.extraTurnMilliseconds : Advertiser.firstTurnMilliseconds)
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
        return command(for: step)
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
                return listsRefused(command(for: step).opcode, result.status, now: now)
            }
            // (A refused disable is retried as ever: it must happen.)
            if !securedLinks.isEmpty, step != .enable(false) {
                refusedWhileSecured = true
                Log.warning("adv", "\(command(for: step).opcode) refused: \(result.status) while the phone is connected;"
                    + " not advertising until a link goes")
                return
            }
            Log.warning("adv", "\(command(for: step).opcode) refused: \(result.status); trying again in \(retryDelay) ms")
            retryAt = now.adding(milliseconds: retryDelay)
            retryDelay = min(retryDelay * 2, Advertiser.maxRetryMilliseconds)
            return
        }
        retryDelay = Advertiser.firstRetryMilliseconds
        switch step {
        case .identity(let a, let set): applied.identity[set] = a
        case .enable(let on):
            applied.enabledSets = on ? payloads.count : 0
            applied.setEndedByConnection = false
            if on { startTurns(now: now) }
            if on, let interval = applied.parameters[0]?.interval {
                Log.info("adv", "advertising every \(interval) as \(identity.map { $0.description } ?? "the public address")"
                    + (payloads.count > 1 ? ", \(payloads.count) payloads on a set each" : ""))
            } else if !on {
                Log.info("adv", "advertising stopped")
            }
        case .parameters(let p, let set): applied.parameters[set] = p
        case .data(let d, let set): applied.data[set] = d
        case .scanResponse(let d, let set): applied.scanResponse[set] = d
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

    /// Sets where the controller's command form is the extended one
    /// (`LECommandForm`: sets, counted at bring-up, and extended scanning
    /// and initiating), the legacy commands otherwise, so the advertising
    /// never mixes with the host's scanning and connecting.
    static func commands(for info: ControllerInfo) -> Commands {
        guard case .extended(let count) = info.commandForm else {
            if let why = info.legacyFormReason { Log.info("adv", why + "; legacy advertising, one combined payload") }
            return .legacy
        }
        Log.info("adv", "the controller has \(count) advertising set\(count == 1 ? "" : "s")")
        return .sets(count)
    }

    private var desiredParameters: Parameters {
        Parameters(interval: interval, ownAddressType: identity == nil ? .public : .random,
                   filterPolicy: filtering == .controller ? .connectionsFromAcceptList : .anyone)
    }

    private func command(for step: Step) -> HCICommand {
        let legacy = commands != nil && commands == .legacy
        switch step {
        case let .identity(a, set):
            return legacy ? .leSetRandomAddress(a) : .leSetAdvertisingSetRandomAddress(handle(set), a)
        case .enable(let on):
            if legacy { return .leSetAdvertisingEnable(on) }
            return on ? .leEnableAdvertisingSets((0..<payloads.count).map(handle)) : .leDisableAllAdvertisingSets()
        case let .parameters(p, set):
            return legacy
                ? .leSetAdvertisingParameters(interval: p.interval, ownAddressType: p.ownAddressType, filterPolicy: p.filterPolicy)
                : .leSetExtendedAdvertisingParameters(handle(set), interval: p.interval, ownAddressType: p.ownAddressType,
                                                      filterPolicy: p.filterPolicy)
        case let .data(d, set):
            return legacy ? .leSetAdvertisingData(d) : .leSetExtendedAdvertisingData(handle(set), d)
        case let .scanResponse(d, set):
            return legacy ? .leSetScanResponseData(d) : .leSetExtendedScanResponseData(handle(set), d)
        case .list(let c, _):
            return c
        }
    }

    private func handle(_ set: Int) -> AdvertisingSetHandle { AdvertisingSetHandle(UInt8(truncatingIfNeeded: set)) }

    /// The first difference between what is wanted and what the controller
    /// has, as a command. Whatever needs advertising off turns it off first.
    private mutating func nextStep() -> Step? {
        guard let commands else { return nil }
        let enabled = applied.enabledSets > 0
        // The legacy random address is the controller's own, wanted before
        // any scan even when nothing is advertised.
        if commands == .legacy, let identity, applied.identity[0] != identity {
            return enabled ? .enable(false) : .identity(identity, set: 0)
        }
        let payloads = self.payloads
        guard !payloads.isEmpty else {
            return enabled ? .enable(false) : nil
        }
        // Sets that should not be on air (fewer payloads than before).
        if enabled && applied.enabledSets != payloads.count { return .enable(false) }
        if listsPending, let controller {
            if enabled { return .enable(false) }
            if listProgram.isEmpty { listProgram = controller.listProgram(for: audience) }
            let command = listProgram.removeFirst()
            return .list(command, completes: listProgram.isEmpty ? audience : nil)
        }
        let parameters = desiredParameters
        for set in payloads.indices where applied.parameters[set] != parameters {
            return enabled ? .enable(false) : .parameters(parameters, set: set)
        }
        // A set exists once it has parameters (7.8.52 refuses an address
        // for a set that does not).
        if let identity {
            for set in payloads.indices where applied.identity[set] != identity {
                return enabled ? .enable(false) : .identity(identity, set: set)
            }
        }
        for (set, payload) in payloads.enumerated() {
            if applied.data[set] != payload.advertisingData { return .data(payload.advertisingData, set: set) }
            if applied.scanResponse[set] != payload.scanResponse { return .scanResponse(payload.scanResponse, set: set) }
        }
        // A connection ended one of the sets: all off, then all on again
        // (the same commands as any other change, whatever the controller
        // makes of enabling a set that is still on).
        if applied.setEndedByConnection { return .enable(false) }
        return enabled ? nil : .enable(true)
    }
}
