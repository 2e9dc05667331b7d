import BluetoothCore

/// The ANCS Notification Consumer for one link, as a sans-I/O state machine.
///
/// The owner feeds it GATT results, Notification Source and Data Source
/// values and time; it answers with `ANCSAction`s (GATT operations to run and
/// events for the rest of the head unit). It never touches GATT itself.
///
/// Life of a link:
/// 1. `start(now:)` once the link is encrypted: `.discover`;
/// 2. `discoveryCompleted`: subscribe to the Data Source, then to the
///    Notification Source (so no response can be missed); the session begins
///    when the Notification Source subscription is confirmed, and the phone
///    then sends every existing notification flagged PreExisting;
/// 3. each new UID gets GetNotificationAttributes for its AppIdentifier only;
///    the owner is asked (`.askWantsText`) whether it is worth its Title,
///    Subtitle, Message, Date and action labels, and answers with
///    `textWanted(_:for:now:)`. A dropped notification never has its text asked
///    for; when it changes, it is identified and filtered again;
/// 4. Control Point requests go one at a time (`ANCSClient+Requests.swift`);
///    their Data Source answers are rebuilt by `DataSourceReassembler`;
/// 5. liveness: a silent Control Point is probed, and a probe answered
///    wrongly (or a Notification Source silent while notifications are
///    expected, or silent for hours beside answered probes) ends the session
///    and subscribes again;
/// 6. `serviceChanged(now:)` rediscovers; `stop(now:)` unsubscribes;
///    `disconnected(now:)` forgets everything. UIDs never outlive their session.
public final class ANCSClient {
    public let connection: ConnectionHandle
    public var configuration: ANCSConfiguration {
        didSet { requestShapes.removeAll() }
    }
    /// Display names learned so far; persist it on `.appNameLearned`.
    public internal(set) var appNames: AppNameCache {
        didSet { namedApp = nil }
    }
    /// The app whose name `name(of:)` looked up last, and that name (nil
    /// when unknown), while `appNames` is unchanged: each notification asks
    /// for its app's name three times, and hashing the identifier cost
    /// some 400 instructions a time; navigation is one app after another.
    private var namedApp: AppIdentifier?
    private var namedAppName: String?
    /// True while the phone is expected to keep updating a notification (a
    /// navigation instruction that changed in this session is on screen): a
    /// Notification Source silent for `silenceThresholdMilliseconds` is then
    /// re-subscribed. PreExisting replays do not end the silence.
    public private(set) var notificationsExpected = false
    /// Why the phone last refused the head unit notifications, until it
    /// answers normally again.
    public internal(set) var sharingRefusal: SharingRefusal?
    public var isSharingDisabled: Bool { sharingRefusal != nil }

    enum Phase: Equatable {
        /// Not started yet, or the link is gone.
        case idle
        case discovering
        /// No usable ANCS; waiting for Service Changed.
        case absent
        case subscribing(ANCSCharacteristic)
        /// Session running.
        case active
        case unsubscribing(ANCSCharacteristic, then: AfterUnsubscribe)
        /// Discovery or a subscription was refused; try again at `until`.
        case waitingToRetry(until: Instant)
        /// Unsubscribed on purpose (`stop`).
        case stopped
    }

    enum AfterUnsubscribe: Equatable {
        case resubscribe
        case stop
    }

    /// How far a notification of this session has got.
    enum Stage: Equatable {
        /// Its AppIdentifier is being asked for.
        case identifying
        /// The AppIdentifier could not be fetched; tried again on its next change.
        case unidentified
        /// The filter dropped it: its text is never asked for. A change
        /// sends it back to `identifying`.
        case dropped
        /// Passed the filter; its text is queued or being fetched.
        case wanted
        case fetched
        /// Passed the filter, but fetching its text failed; tried again on its next change.
        case textFailed
    }

    /// One notification of the session. A class: the table hands out a
    /// reference, so reading or changing an entry copies none of its
    /// notification's strings (as a struct, each look at its stage copied
    /// the whole entry out of the dictionary, and each change moved it out
    /// and back in).
    final class Entry {
        var notification: ANCSNotification
        var stage: Stage
        /// Reported to the owner (fetched or dropped), so its removal is too.
        var reported = false
        /// Modified while its text was in flight: fetch again afterwards.
        var refetch = false
        /// Arrival order, for eviction and listing.
        let sequence: Int

        init(notification: ANCSNotification, stage: Stage, sequence: Int) {
            self.notification = notification
            self.stage = stage
            self.sequence = sequence
        }
    }

    var phase: Phase = .idle
    var entries = ANCSEntryTable()
    var sequence = 0
    var now = Instant.zero
    @usableFromInline var actions = FIFO<ANCSAction>()

    // Control Point queue (see ANCSClient+Requests.swift).
    var queue: [Request] = []
    var inFlight: InFlight?
    /// The serial of a Control Point write whose result has not come back.
    /// No other write goes out before it does, so results never get mixed up.
    var writeOutstanding: Int?
    /// The notification whose `.askWantsText` is not answered yet: the
    /// Control Point waits for the answer, so that the text request it may
    /// bring goes before the requests queued behind it.
    var verdictPending: NotificationUID?
    var serial = 0
    /// The GetNotificationAttributes shapes made so far (`requestShape`).
    var requestShapes: [RequestShape] = []
    var appNameFailures: Set<AppIdentifier> = []

    // Liveness.
    /// The last time the Control Point answered as expected.
    var lastAnswer = Instant.zero
    var lastNotificationSource = Instant.zero

    // Backing off when the phone keeps refusing.
    /// Subscriptions refused with Insufficient Authorization in a row (the
    /// "Allow notifications?" prompt open or declined); a session resets it.
    var authorizationRefusals = 0
    /// Security refusals (0x05, 0x0F) since the Control Point last answered:
    /// up to `securityRequestLimit` of them ask for a re-pairing.
    var securityRefusals = 0

    public init(connection: ConnectionHandle, configuration: ANCSConfiguration = ANCSConfiguration(),
                appNames: AppNameCache = AppNameCache()) {
        self.connection = connection
        self.configuration = configuration
        self.appNames = appNames
    }

    /// Inlinable: the core polls on every pass, mostly finding nothing,
    /// and inlined an empty poll is a test instead of a call (see `FIFO`).
    @inlinable public func pollAction() -> ANCSAction? {
        actions.popFirst()
    }

    /// True while `takeAction()` has an action to give.
    @inlinable public var hasActions: Bool { !actions.isEmpty }

    /// The next action, while `hasActions`: the loop the core runs on every
    /// pass, without the optional a `while let` over `pollAction` ends on
    /// (see `FIFO.removeFirst`).
    @inlinable public func takeAction() -> ANCSAction { actions.removeFirst() }

    // MARK: - State for the owner

    /// True between `.sessionStarted` and `.sessionEnded`.
    public var isSessionActive: Bool { phase == .active }

    /// The notifications of this session, oldest first (text only for fetched ones).
    public var notifications: [ANCSNotification] {
        entries.values.sorted { $0.sequence < $1.sequence }.map { $0.notification }
    }

    public func notification(_ uid: NotificationUID) -> ANCSNotification? { entries[uid]?.notification }

    // MARK: - Link life

    /// The link is encrypted: look for ANCS.
    public func start(now: Instant) {
        self.now = now
        switch phase {
        case .idle, .stopped, .absent, .waitingToRetry:
            beginDiscovery()
        case .discovering, .subscribing, .active, .unsubscribing:
            Log.debug("ancs", "start ignored: already running")
        }
    }

    /// The phone sent Service Changed: ANCS may have appeared (iOS publishes
    /// it only once bonded), gone, or moved. Starts over with discovery.
    public func serviceChanged(now: Instant) {
        self.now = now
        guard phase != .idle && phase != .stopped else { return }
        Log.info("ancs", "Service Changed: discovering ANCS again")
        endSession()
        beginDiscovery()
    }

    /// Ends the session on purpose (the user disconnects or unpairs while the
    /// link is still up): unsubscribes both sources.
    public func stop(now: Instant) {
        self.now = now
        if phase == .active {
            endSession()
            phase = .unsubscribing(.notificationSource, then: .stop)
            emit(.unsubscribe(connection, .notificationSource))
        } else if case .unsubscribing(let c, _) = phase {
            phase = .unsubscribing(c, then: .stop)
        } else {
            phase = .stopped
        }
    }

    /// The link is gone: the session ends and every UID with it.
    public func disconnected(now: Instant) {
        self.now = now
        endSession()
        phase = .idle
        writeOutstanding = nil
    }

    // MARK: - GATT results

    public func discoveryCompleted(_ result: ANCSDiscovery, now: Instant) {
        self.now = now
        guard phase == .discovering else {
            Log.debug("ancs", "discovery result ignored: not discovering")
            return
        }
        switch result {
        case .found(let characteristics):
            guard characteristics.count == ANCSCharacteristic.allCases.count else {
                var missing = ""
                for c in ANCSCharacteristic.allCases where !characteristics.contains(c) {
                    missing += missing.isEmpty ? c.description : ", " + c.description
                }
                Log.warning("ancs", "ANCS found without its \(missing); waiting for Service Changed")
                phase = .absent
                emit(.event(.serviceAbsent))
                return
            }
            subscribe(.dataSource)
        case .absent:
            Log.info("ancs", "the phone publishes no ANCS (yet); waiting for Service Changed")
            phase = .absent
            emit(.event(.serviceAbsent))
        case .failed:
            Log.warning("ancs", "ANCS discovery failed; trying again in \(configuration.subscribeRetryMilliseconds) ms")
            phase = .waitingToRetry(until: now.adding(milliseconds: configuration.subscribeRetryMilliseconds))
        }
    }

    public func subscribeCompleted(_ characteristic: ANCSCharacteristic, _ result: RemoteOperationResult, now: Instant) {
        self.now = now
        guard phase == .subscribing(characteristic) else {
            Log.debug("ancs", "\(characteristic) subscription result ignored")
            return
        }
        guard result.succeeded else {
            var retry = configuration.subscribeRetryMilliseconds
            if case .attError(let code) = result {
                Log.warning("ancs", "subscribing to the \(characteristic) refused: \(ANCSErrorCode.name(code))")
                if let refusal = ANCSErrorCode.sharingRefusal(code) { reportSharingDisabled(refusal) }
                if ANCSErrorCode.meansSecurityRequired(code) { retry = askForSecurity() }
                if code == ANCSErrorCode.insufficientAuthorization { retry = nextAuthorizationRetry() }
            } else {
                Log.warning("ancs", "subscribing to the \(characteristic) failed")
            }
            phase = .waitingToRetry(until: now.adding(milliseconds: retry))
            return
        }
        if characteristic == .dataSource {
            subscribe(.notificationSource)
        } else {
            beginSession()
        }
    }

    public func unsubscribeCompleted(_ characteristic: ANCSCharacteristic, _ result: RemoteOperationResult, now: Instant) {
        self.now = now
        guard case .unsubscribing(let expected, let then) = phase, expected == characteristic else {
            Log.debug("ancs", "\(characteristic) unsubscription result ignored")
            return
        }
        if !result.succeeded {
            // Carry on: the next subscription overwrites the CCCD anyway.
            Log.info("ancs", "unsubscribing from the \(characteristic) failed")
        }
        if characteristic == .notificationSource {
            phase = .unsubscribing(.dataSource, then: then)
            emit(.unsubscribe(connection, .dataSource))
            return
        }
        switch then {
        case .resubscribe: subscribe(.dataSource)
        case .stop: phase = .stopped
        }
    }

    // MARK: - Notifications from the phone

    /// One Notification Source notification.
    public func notificationSourceReceived(_ bytes: [UInt8], now: Instant) {
        self.now = now
        if phase == .subscribing(.notificationSource) {
            // The phone may send PreExisting notifications before our side
            // has seen the CCCD write confirmed: the session has begun.
            beginSession()
        }
        guard phase == .active else {
            Log.info("ancs", "Notification Source value outside a session ignored")
            return
        }
        let event: NotificationSourceEvent
        do throws(NotificationSourceEvent.ParseError) {
            event = try NotificationSourceEvent(parsing: bytes)
        } catch {
            switch error {
            case .length(let n): Log.warning("ancs", "Notification Source: \(n) bytes instead of 8 dropped: \(hexString(bytes))")
            case .reservedEventID(let id): Log.warning("ancs", "Notification Source: reserved EventID \(id) dropped")
            }
            return
        }
        Log.debug("ancs", "<- \(event)")
        if !event.flags.contains(.preExisting) {
            // Only news proves that the phone still pushes: a PreExisting
            // replay is what any (re)subscription gets.
            lastNotificationSource = now
        }
        switch event.eventID {
        case .added: added(event)
        case .modified: modified(event)
        case .removed: removed(event)
        }
        pump()
    }

    /// One Data Source notification.
    public func dataSourceReceived(_ bytes: [UInt8], now: Instant) {
        self.now = now
        guard phase == .active else {
            Log.info("ancs", "Data Source value outside a session ignored")
            return
        }
        dataSourceFragment(bytes)
        pump()
    }

    // MARK: - Commands from the head unit

    /// PerformNotificationAction (positive or negative) on a notification of
    /// this session that offers it. False when it cannot be sent.
    @discardableResult
    public func performAction(_ action: ActionID, on uid: NotificationUID, now: Instant) -> Bool {
        self.now = now
        guard phase == .active, let entry = entries[uid] else {
            Log.info("ancs", "no notification \(uid) in this session: \(action) action not sent")
            return false
        }
        guard entry.notification.flags.contains(action.flag) else {
            Log.info("ancs", "notification \(uid) offers no \(action) action")
            return false
        }
        enqueue(.action(uid, action))
        pump()
        return true
    }

    /// Tells the client whether the phone should be updating a notification
    /// (see `notificationsExpected`).
    public func setNotificationsExpected(_ expected: Bool, now: Instant) {
        self.now = now
        if expected && !notificationsExpected && lastNotificationSource < now {
            // Silence is measured from the moment updates became expected.
            lastNotificationSource = now
        }
        notificationsExpected = expected
    }

    // MARK: - Time

    public var nextDeadline: Instant? {
        var deadline = inFlight?.deadline
        switch phase {
        case .waitingToRetry(let until):
            deadline = earliest(deadline, until)
        case .active:
            if notificationsExpected {
                deadline = earliest(deadline, lastNotificationSource.adding(milliseconds: configuration.silenceThresholdMilliseconds))
            }
            if !probePending {
                deadline = earliest(deadline, lastAnswer.adding(milliseconds: configuration.probeIntervalMilliseconds))
            }
        default:
            break
        }
        return deadline
    }

    public func handleTimeout(now: Instant) {
        self.now = now
        if let flight = inFlight, flight.deadline <= now {
            inFlight = nil
            fail(flight.request, because: "no answer within \(configuration.requestTimeoutMilliseconds) ms")
        }
        switch phase {
        case .waitingToRetry(let until) where until <= now:
            beginDiscovery()
        case .active:
            let silentSince = lastNotificationSource
            if notificationsExpected && silentSince.adding(milliseconds: configuration.silenceThresholdMilliseconds) <= now {
                resubscribe(because: "the Notification Source has been silent for \(now.millisecondsSince(silentSince)) ms")
                return
            }
            if !probePending && lastAnswer.adding(milliseconds: configuration.probeIntervalMilliseconds) <= now {
                Log.debug("ancs", "probing the Control Point")
                enqueue(.probe)
            }
        default:
            break
        }
        pump()
    }

    // MARK: - Session internals

    func beginDiscovery() {
        phase = .discovering
        emit(.discover(connection))
    }

    func subscribe(_ characteristic: ANCSCharacteristic) {
        phase = .subscribing(characteristic)
        emit(.subscribe(connection, characteristic))
    }

    func beginSession() {
        phase = .active
        authorizationRefusals = 0
        lastAnswer = now
        lastNotificationSource = now
        Log.info("ancs", "session started")
        emit(.event(.sessionStarted))
        // Probe at once: a phone that does not share its notifications with
        // this head unit sends nothing, and only a Control Point answer
        // tells that apart from a quiet phone (0xA2 means all is well).
        enqueue(.probe)
        pump()
    }

    /// Forgets every UID, queued request and partial response of the
    /// session; reports the end if a session was running.
    func endSession() {
        let wasActive = phase == .active
        entries.removeAll()
        queue.removeAll()
        inFlight = nil
        verdictPending = nil
        appNameFailures.removeAll()
        if wasActive {
            Log.info("ancs", "session ended")
            emit(.event(.sessionEnded))
        }
    }

    /// Liveness recovery: unsubscribe both sources, then subscribe again.
    func resubscribe(because reason: String) {
        Log.warning("ancs", "re-subscribing: \(reason)")
        endSession()
        phase = .unsubscribing(.notificationSource, then: .resubscribe)
        emit(.unsubscribe(connection, .notificationSource))
    }

    /// The phone refused a Control Point write for lack of authentication
    /// or encryption: nothing works until the owner has the link secured
    /// again. The session ends; discovery and subscriptions start afresh a
    /// little later, on the secured link.
    func securityRequired(_ code: UInt8) {
        Log.warning("ancs", "the phone refuses this link as not secure (\(ANCSErrorCode.name(code)))")
        let retry = askForSecurity()
        endSession()
        phase = .waitingToRetry(until: now.adding(milliseconds: retry))
    }

    /// A security refusal: asks the owner to secure the link again, at most
    /// `securityRequestLimit` times until the Control Point answers (iOS
    /// may keep refusing a link it paired, and each re-pairing is a passkey
    /// for the driver); after that says so once and only tries again, at
    /// the long wait. Returns when to subscribe again.
    func askForSecurity() -> Int64 {
        securityRefusals += 1
        if securityRefusals <= configuration.securityRequestLimit {
            Log.info("ancs", "asking for security (\(securityRefusals) of \(configuration.securityRequestLimit)); subscribing again in \(configuration.subscribeRetryMilliseconds) ms")
            emit(.event(.securityRequired))
            return configuration.subscribeRetryMilliseconds
        }
        if securityRefusals == configuration.securityRequestLimit + 1 {
            Log.warning("ancs", "the phone still refuses the link after \(configuration.securityRequestLimit) pairings; not pairing again (the driver is asked to)")
            emit(.event(.securityRefusedRepeatedly))
        }
        return configuration.authorizationRetryLimitMilliseconds
    }

    /// The wait after a subscription refused with Insufficient
    /// Authorization: `authorizationRetryMilliseconds` (so notifications
    /// come about that long after the driver taps Allow), doubled at each
    /// refusal in a row up to `authorizationRetryLimitMilliseconds`.
    func nextAuthorizationRetry() -> Int64 {
        let first = configuration.authorizationRetryMilliseconds
        let limit = max(first, configuration.authorizationRetryLimitMilliseconds)
        var wait = first
        var doublings = authorizationRefusals
        while doublings > 0 && wait < limit {
            wait *= 2
            doublings -= 1
        }
        authorizationRefusals += 1
        let retry = min(wait, limit)
        if authorizationRefusals > 1 { Log.info("ancs", "notifications still not allowed; asking again in \(retry) ms") }
        return retry
    }

    func reportSharingDisabled(_ refusal: SharingRefusal) {
        guard sharingRefusal != refusal else { return }
        sharingRefusal = refusal
        switch refusal {
        case .notAllowed:
            Log.warning("ancs", "the phone refuses notifications to this head unit: not allowed on the iPhone (yet)")
        case .switchedOff:
            Log.warning("ancs", "the phone refuses notifications to this head unit: \"Share System Notifications\" is off")
        }
        emit(.event(.sharingDisabled(refusal)))
    }

    // MARK: - Notification Source events

    func added(_ event: NotificationSourceEvent) {
        if hasEntry(event.uid) {
            // Dedupe: the same UID twice in one session is one notification.
            Log.debug("ancs", "notification \(event.uid) added twice; kept once")
            changeEntry(event.uid) { update($0, from: event) }
            return
        }
        sequence += 1
        let notification = ANCSNotification(uid: event.uid, category: event.category,
                                            categoryCount: event.categoryCount, flags: event.flags)
        entries[event.uid] = Entry(notification: notification, stage: .identifying, sequence: sequence)
        enqueue(.identify(event.uid))
        evictIfFull()
    }

    func modified(_ event: NotificationSourceEvent) {
        guard hasEntry(event.uid) else {
            // Its Added was missed (or evicted): take it in as new.
            added(event)
            return
        }
        changeEntry(event.uid) { entry in
            update(entry, from: event)
            switch entry.stage {
            case .identifying:
                break
            case .unidentified, .dropped:
                // A dropped one may have changed category (or the filter may
                // now take its app): the filter runs again, on the AppIdentifier
                // alone, and only a yes asks for its text.
                entry.stage = .identifying
                enqueue(.identify(event.uid))
            case .wanted:
                if !queue.contains(.text(event.uid)) { entry.refetch = true }
            case .fetched, .textFailed:
                entry.stage = .wanted
                enqueue(.text(event.uid))
            }
        }
    }

    func removed(_ event: NotificationSourceEvent) {
        guard hasEntry(event.uid) else {
            Log.debug("ancs", "removal of unknown notification \(event.uid) ignored")
            return
        }
        changeEntry(event.uid) { update($0, from: event) }
        forget(event.uid)
    }

    /// Changes the entry of `uid`, if there is one. `change` must not
    /// touch `entries` itself.
    func changeEntry(_ uid: NotificationUID, _ change: (Entry) -> Void) {
        guard let entry = entries[uid] else { return }
        change(entry)
    }

    func hasEntry(_ uid: NotificationUID) -> Bool { entries[uid] != nil }

    func stage(of uid: NotificationUID) -> Stage? { entries[uid]?.stage }

    func update(_ entry: Entry, from event: NotificationSourceEvent) {
        entry.notification.flags = event.flags
        entry.notification.category = event.category
        entry.notification.categoryCount = event.categoryCount
    }

    /// Drops a notification of this session: removed on the phone, gone
    /// (0xA2) or evicted. Its queued requests go with it.
    func forget(_ uid: NotificationUID) {
        guard let entry = entries.removeValue(forKey: uid) else { return }
        queue.removeAll { $0.uid == uid }
        if verdictPending == uid { verdictPending = nil }
        if entry.reported { emit(.event(.notificationRemoved(entry.notification))) }
    }

    func evictIfFull() {
        guard entries.count > max(1, configuration.maximumNotifications) else { return }
        // The oldest one nobody sees goes first; else the oldest of all.
        let sorted = entries.values.sorted { $0.sequence < $1.sequence }
        let victim = sorted.first { $0.stage == .dropped || $0.stage == .unidentified } ?? sorted.first
        if let victim {
            Log.info("ancs", "more than \(configuration.maximumNotifications) notifications: forgetting \(victim.notification.uid)")
            forget(victim.notification.uid)
        }
    }

    func emit(_ action: ANCSAction) { actions.append(action) }

    /// `appNames.name(for:)`, remembered for the app asked about last.
    func name(of app: AppIdentifier) -> String? {
        if let namedApp, namedApp == app { return namedAppName }
        let name = appNames.name(for: app)
        namedApp = app
        namedAppName = name
        return name
    }
}
