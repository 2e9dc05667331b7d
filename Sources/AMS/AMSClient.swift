import BluetoothCore

/// What the AMS client asks its owner to do, drained with
/// `AMSClient.pollAction()`. Every GATT action gets exactly one answer.
public enum AMSAction: Equatable {
    /// Find the AMS service and its characteristics; answer with `discoveryCompleted`.
    case discover(ConnectionHandle)
    /// Write 0x0001 to the CCCD and route its notifications to
    /// `remoteCommandReceived` / `entityUpdateReceived`; answer with `subscribeCompleted`.
    case subscribe(ConnectionHandle, AMSCharacteristic)
    /// Write (with response); answer with `writeCompleted`.
    case write(ConnectionHandle, AMSCharacteristic, [UInt8])
    /// Read the whole value (Read, then Read Blob); answer with `readCompleted`.
    case read(ConnectionHandle, AMSCharacteristic)
    case event(AMSEvent)
}

public enum AMSEvent: Equatable {
    /// Registered for Player, Queue and Track updates.
    case ready
    /// Something the phone plays changed (events are coalesced over
    /// `AMSConfiguration.eventCoalesceMilliseconds`). Report it with
    /// `nowPlaying.report(at: now)`.
    case nowPlayingChanged(NowPlayingState)
    /// The phone's list of commands it accepts now.
    case supportedCommandsChanged(Set<RemoteCommandID>)
    /// The phone refused a remote command (e.g. 0xA0: no player).
    case commandFailed(RemoteCommandID)
    /// No usable AMS on this link (wait for Service Changed).
    case serviceAbsent
}

public struct AMSConfiguration {
    /// Changes within this window make one `nowPlayingChanged` (a new track
    /// arrives as four or more Entity Updates). 0 reports every change at once.
    public var eventCoalesceMilliseconds: Int64 = 100

    public init() {}
}

/// The AMS Media Remote for one link, as a sans-I/O state machine: it
/// subscribes, registers for Player, Queue and Track updates one write at a
/// time, keeps the now-playing state (fetching truncated values through
/// Entity Attribute) and sends remote commands the phone lists as supported.
public final class AMSClient {
    public let connection: ConnectionHandle
    public var configuration: AMSConfiguration
    public private(set) var nowPlaying = NowPlayingState()
    /// The commands the phone accepts now (its latest Remote Command notification).
    public private(set) var supportedCommands: Set<RemoteCommandID> = []
    /// Registered for every entity.
    public private(set) var isReady = false

    /// What each registration asks for.
    public static let registrations: [(EntityID, [UInt8])] = [
        (.player, PlayerAttributeID.allCases.map { $0.rawValue }),
        (.queue, QueueAttributeID.allCases.map { $0.rawValue }),
        (.track, TrackAttributeID.allCases.map { $0.rawValue }),
    ]

    enum Phase: Equatable {
        case idle
        case discovering
        case absent
        case running
    }

    /// One GATT exchange with the phone; only one is out at a time.
    enum Operation: Equatable {
        case subscribe(AMSCharacteristic)
        case register(EntityID, [UInt8])
        /// Entity Attribute: select with a write, then read the full value.
        case fetch(EntityAttribute, reading: Bool)
        case command(RemoteCommandID)
    }

    private var phase: Phase = .idle
    private var available: Set<AMSCharacteristic> = []
    private var queue: [Operation] = []
    private var inFlight: Operation?
    @usableFromInline var actions = FIFO<AMSAction>()
    private var now = Instant.zero
    private var pendingEventAt: Instant?

    public init(connection: ConnectionHandle, configuration: AMSConfiguration = AMSConfiguration()) {
        self.connection = connection
        self.configuration = configuration
    }

    /// Inlinable: the core polls on every pass, mostly finding nothing,
    /// and inlined an empty poll is a test instead of a call (see `FIFO`).
    @inlinable public func pollAction() -> AMSAction? { actions.popFirst() }
    /// True while `takeAction()` has an action to give.
    @inlinable public var hasActions: Bool { !actions.isEmpty }
    /// The next action, while `hasActions` (see `ANCSClient.takeAction`).
    @inlinable public func takeAction() -> AMSAction { actions.removeFirst() }

    // MARK: - Link life

    /// The link is encrypted: look for AMS.
    public func start(now: Instant) {
        self.now = now
        guard phase == .idle || phase == .absent else { return }
        phase = .discovering
        emit(.discover(connection))
    }

    /// Service Changed: discover again.
    public func serviceChanged(now: Instant) {
        self.now = now
        guard phase != .idle else { return }
        queue.removeAll()
        inFlight = nil
        isReady = false
        phase = .discovering
        emit(.discover(connection))
    }

    public func disconnected(now: Instant) {
        self.now = now
        phase = .idle
        queue.removeAll()
        inFlight = nil
        isReady = false
        pendingEventAt = nil
        if nowPlaying != NowPlayingState() {
            nowPlaying = NowPlayingState()
            emit(.event(.nowPlayingChanged(nowPlaying)))
        }
        if !supportedCommands.isEmpty {
            supportedCommands = []
            emit(.event(.supportedCommandsChanged([])))
        }
    }

    // MARK: - GATT results

    public func discoveryCompleted(_ result: AMSDiscovery, now: Instant) {
        self.now = now
        guard phase == .discovering else { return }
        guard case .found(let characteristics) = result,
              characteristics.contains(.entityUpdate) || characteristics.contains(.remoteCommand) else {
            Log.info("ams", "the phone offers no usable AMS; waiting for Service Changed")
            phase = .absent
            emit(.event(.serviceAbsent))
            return
        }
        available = characteristics
        phase = .running
        if available.contains(.remoteCommand) { queue.append(.subscribe(.remoteCommand)) }
        if available.contains(.entityUpdate) {
            queue.append(.subscribe(.entityUpdate))
            for (entity, attributes) in AMSClient.registrations { queue.append(.register(entity, attributes)) }
        }
        pump()
    }

    public func subscribeCompleted(_ characteristic: AMSCharacteristic, _ result: RemoteOperationResult, now: Instant) {
        self.now = now
        guard inFlight == .subscribe(characteristic) else { return staleResult("subscription") }
        inFlight = nil
        if !result.succeeded {
            Log.warning("ams", "subscribing to \(characteristic) failed\(errorText(result))")
            if characteristic == .entityUpdate {
                queue.removeAll { if case .register = $0 { return true } else { return false } }
            }
        }
        pump()
    }

    public func writeCompleted(_ characteristic: AMSCharacteristic, _ result: RemoteOperationResult, now: Instant) {
        self.now = now
        switch inFlight {
        case .register(let entity, _) where characteristic == .entityUpdate:
            inFlight = nil
            if !result.succeeded { Log.warning("ams", "registering for \(entity) updates failed\(errorText(result))") }
            if !isReady && !queue.contains(where: { if case .register = $0 { return true } else { return false } }) {
                isReady = true
                Log.info("ams", "registered for Player, Queue and Track updates")
                emit(.event(.ready))
            }
        case .fetch(let attribute, reading: false) where characteristic == .entityAttribute:
            if result.succeeded {
                inFlight = .fetch(attribute, reading: true)
                emit(.read(connection, .entityAttribute))
                return
            }
            inFlight = nil
            Log.info("ams", "full value of \(attribute) not available\(errorText(result))")
        case .command(let command) where characteristic == .remoteCommand:
            inFlight = nil
            if !result.succeeded {
                Log.info("ams", "the phone refused \(command)\(errorText(result))")
                emit(.event(.commandFailed(command)))
            }
        default:
            return staleResult("write")
        }
        pump()
    }

    public func readCompleted(_ characteristic: AMSCharacteristic, _ result: RemoteOperationResult, now: Instant) {
        self.now = now
        guard characteristic == .entityAttribute, case .fetch(let attribute, reading: true) = inFlight else {
            return staleResult("read")
        }
        inFlight = nil
        if case .value(let bytes) = result {
            apply(attribute, String(decoding: bytes, as: UTF8.self))
        } else {
            Log.info("ams", "reading the full value of \(attribute) failed\(errorText(result))")
        }
        pump()
    }

    // MARK: - Notifications from the phone

    public func entityUpdateReceived(_ bytes: [UInt8], now: Instant) {
        self.now = now
        let update: EntityUpdate
        do throws(EntityUpdate.ParseError) {
            update = try EntityUpdate(parsing: bytes)
        } catch {
            switch error {
            case .tooShort(let n): Log.warning("ams", "Entity Update of \(n) bytes dropped")
            case .reserved(let e, let a): Log.info("ams", "Entity Update for reserved entity \(e) attribute \(a) ignored")
            }
            return
        }
        apply(update.attribute, update.text)
        if update.flags.contains(.truncated) {
            // Show the start now; the whole value follows through Entity Attribute.
            let fetch = Operation.fetch(update.attribute, reading: false)
            if available.contains(.entityAttribute) && !queue.contains(fetch)
                && inFlight != fetch && inFlight != .fetch(update.attribute, reading: true) {
                queue.append(fetch)
            }
        }
        pump()
    }

    public func remoteCommandReceived(_ bytes: [UInt8], now: Instant) {
        self.now = now
        var commands: Set<RemoteCommandID> = []
        for byte in bytes {
            if let command = RemoteCommandID(rawValue: byte) {
                commands.insert(command)
            } else {
                Log.debug("ams", "reserved RemoteCommandID \(byte) ignored")
            }
        }
        guard commands != supportedCommands else { return }
        supportedCommands = commands
        emit(.event(.supportedCommandsChanged(commands)))
    }

    // MARK: - Commands

    /// Sends a remote command if the phone currently lists it as supported.
    @discardableResult
    public func send(_ command: RemoteCommandID, now: Instant) -> Bool {
        self.now = now
        guard phase == .running, available.contains(.remoteCommand), supportedCommands.contains(command) else {
            Log.info("ams", "\(command) is not supported by the phone now; not sent")
            return false
        }
        queue.append(.command(command))
        pump()
        return true
    }

    // MARK: - Time

    public var nextDeadline: Instant? { pendingEventAt }

    public func handleTimeout(now: Instant) {
        self.now = now
        if let at = pendingEventAt, at <= now {
            pendingEventAt = nil
            emit(.event(.nowPlayingChanged(nowPlaying)))
        }
    }

    // MARK: - Internals

    private func pump() {
        guard phase == .running, inFlight == nil, !queue.isEmpty else { return }
        let operation = queue.removeFirst()
        inFlight = operation
        switch operation {
        case .subscribe(let c):
            emit(.subscribe(connection, c))
        case .register(let entity, let attributes):
            emit(.write(connection, .entityUpdate, [entity.rawValue] + attributes))
        case .fetch(let attribute, _):
            emit(.write(connection, .entityAttribute, attribute.selector))
        case .command(let command):
            emit(.write(connection, .remoteCommand, [command.rawValue]))
        }
    }

    private func apply(_ attribute: EntityAttribute, _ text: String) {
        var state = nowPlaying
        switch attribute {
        case .player(.name): state.player = nonEmpty(text)
        case .player(.playbackInfo):
            if let info = PlaybackInfo(text) {
                state.playback = info
                state.playbackReceivedAt = now
            } else {
                if !text.isEmpty { Log.warning("ams", "PlaybackInfo \"\(text)\" not understood") }
                state.playback = nil
                state.playbackReceivedAt = nil
            }
        case .player(.volume): state.volumeThousandths = DecimalText.thousandths(text)
        case .queue(.index): state.queueIndex = Int(text)
        case .queue(.count): state.queueCount = Int(text)
        case .queue(.shuffleMode): state.shuffle = UInt8(text).flatMap { QueueMode(rawValue: $0) }
        case .queue(.repeatMode): state.repeatMode = UInt8(text).flatMap { QueueMode(rawValue: $0) }
        case .track(.artist): state.artist = nonEmpty(text)
        case .track(.album): state.album = nonEmpty(text)
        case .track(.title): state.title = nonEmpty(text)
        case .track(.duration): state.durationMilliseconds = DecimalText.thousandths(text)
        }
        // A new PlaybackInfo with the same values still moves the
        // extrapolation base, so it counts as a change.
        guard state != nowPlaying else { return }
        nowPlaying = state
        if configuration.eventCoalesceMilliseconds <= 0 {
            emit(.event(.nowPlayingChanged(nowPlaying)))
        } else if pendingEventAt == nil {
            pendingEventAt = now.adding(milliseconds: configuration.eventCoalesceMilliseconds)
        }
    }

    private func nonEmpty(_ text: String) -> String? { text.isEmpty ? nil : text }

    private func errorText(_ result: RemoteOperationResult) -> String {
        switch result {
        case .attError(AMSErrorCode.invalidState): return ": invalid state (0xa0)"
        case .attError(AMSErrorCode.invalidCommand): return ": invalid command (0xa1)"
        case .attError(AMSErrorCode.absentAttribute): return ": absent attribute (0xa2)"
        case .attError(let code): return ": ATT error 0x" + hex(code, digits: 2)
        case .failed: return ": no answer"
        case .done, .value: return ""
        }
    }

    private func staleResult(_ what: String) {
        Log.debug("ams", "a \(what) result that answers nothing pending; ignored")
    }

    private func emit(_ action: AMSAction) { actions.append(action) }
}
