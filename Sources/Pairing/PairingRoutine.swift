import BluetoothCore

/// How hard to scan. Discovery starts fast, then drops to a low duty cycle
/// so a head unit with no phone around does almost nothing.
public enum ScanDuty: Equatable {
    /// 60 ms interval, 30 ms window: find a phone within a second or two.
    case fast
    /// 1.28 s interval, 30 ms window: at most one short window a second.
    case slow
}

/// Outcome of one GATT operation on the phone (shared with the Apple service clients).
public typealias RemoteResult = RemoteOperationResult

/// What the routine asks its owner to do.
public enum PairingAction: Equatable {
    case startScanning(ScanDuty)
    case stopScanning
    case connect(BluetoothAddress)
    case cancelConnect
    case disconnect(ConnectionHandle)
    case readServerName(ConnectionHandle)
    case readPairedClientName(ConnectionHandle)
    case writePairedClientName(ConnectionHandle, String)
    case subscribePairedClientName(ConnectionHandle)
    /// Persist: this SERVER NAME is our phone now.
    case remember(server: String)
    /// Persist: forget this server and its bond.
    case forget(server: String)
    case stateChanged(PairingState)
    /// The phone on this link passed every rule: security and the Apple
    /// services can start.
    case serverAccepted(ConnectionHandle, server: String)
}

/// The NavigationNotifier pairing rules on the head unit's side, as a
/// sans-I/O state machine. It decides which phone to connect to and when to
/// write, subscribe, remember and forget; its owner runs the radio and GATT.
///
/// The rules (numbers as in the README's phone contract):
/// 1. our CLIENT NAME is fixed and persistent (given at init);
/// 2. with nothing remembered, accept a phone whose PAIRED CLIENT NAME is
///    UNPAIRED or our name;
/// 3. with a remembered SERVER NAME accept only that phone; if it says
///    UNPAIRED or another client's name, forget it (and its bond);
/// 4. on accepting: write our name unless already there, subscribe, remember;
/// 5. a rejected phone is not retried in the same discovery round;
/// 6. UNPAIRED notified during the connection: disconnect and forget;
/// 7. unpair here: write UNPAIRED when connected, then forget;
/// 8. addresses are not identities: the SERVER NAME (later the IRK) is;
/// 9. discovery starts by itself only at power-on with nothing remembered;
///    after any unpair the user starts it.
public final class PairingRoutine {
    public let clientName: String
    public private(set) var rememberedServer: String?
    public private(set) var state: PairingState = .discover

    public struct Timing {
        /// A connection attempt that has not completed by then is cancelled.
        public var connectTimeoutMilliseconds: Int64 = 5000
        /// Fast scanning lasts this long before dropping to slow.
        public var fastScanMilliseconds: Int64 = 30_000
        /// Pause after a failed or rejected candidate before scanning again.
        public var retryPauseMilliseconds: Int64 = 500
        public init() {}
    }
    public var timing = Timing()

    private enum Phase: Equatable {
        case idle
        case scanning(since: Instant)
        case pausing(until: Instant)
        case connecting(BluetoothAddress, deadline: Instant, cancelled: Bool)
        case checking(ConnectionHandle, Check)
        case connected(ConnectionHandle, server: String)
        case disconnecting(ConnectionHandle)
    }

    private enum Check: Equatable {
        case readingServerName
        case readingPairedName(server: String)
        case writingName(server: String)
        case subscribing(server: String)
    }

    private var phase: Phase = .idle
    private var duty: ScanDuty = .fast
    /// Looking for a phone at all (false after the user disconnected or unpaired).
    private var seeking = false
    private var rejected: Set<BluetoothAddress> = []
    private var currentPeer: BluetoothAddress?
    /// Set when our own unpair must write UNPAIRED before the link goes.
    private var unpairing = false
    private var actions: [PairingAction] = []
    private var now = Instant.zero

    public init(clientName: String, rememberedServer: String?) {
        self.clientName = clientName
        self.rememberedServer = rememberedServer
    }

    public func pollAction() -> PairingAction? {
        actions.isEmpty ? nil : actions.removeFirst()
    }

    // MARK: - Power-on and user actions

    /// Power-on: look for the remembered phone, or discover when there is none.
    public func start(now: Instant) {
        self.now = now
        seeking = true
        startRound()
    }

    /// The user asks to discover (touch, key or the console's `scan`), or to
    /// connect to the remembered phone.
    public func discover(now: Instant) {
        self.now = now
        if case .disconnecting = phase {
            // Asked while a link is still going down: look once it is gone.
            seeking = true
            return
        }
        guard !isBusyWithLink else { return }
        seeking = true
        startRound()
    }

    /// The user disconnects: the phone stays remembered, and the head unit
    /// waits until asked to connect again.
    public func userDisconnect(now: Instant) {
        self.now = now
        seeking = false
        stopLooking()
        switch phase {
        case .connected(let h, _), .checking(let h, _):
            phase = .disconnecting(h)
            emit(.disconnect(h))
        default:
            phase = .idle
        }
        showIdle()
    }

    /// The user unpairs on the head unit (rule 7).
    public func userUnpair(now: Instant) {
        self.now = now
        seeking = false
        stopLooking()
        if case .connected(let h, _) = phase {
            unpairing = true
            emit(.writePairedClientName(h, PairedClientName.unpaired))
            return // forget once the write is answered (or fails)
        }
        if case .checking(let h, _) = phase {
            phase = .disconnecting(h)
            emit(.disconnect(h))
        }
        forgetRemembered()
        if case .disconnecting = phase {} else { phase = .idle }
        setState(.discover)
    }

    // MARK: - Radio events

    public func advertiserSeen(_ address: BluetoothAddress, connectable: Bool, advertisesService: Bool, now: Instant) {
        self.now = now
        guard case .scanning = phase, connectable, advertisesService, !rejected.contains(address) else { return }
        emit(.stopScanning)
        phase = .connecting(address, deadline: now.adding(milliseconds: timing.connectTimeoutMilliseconds), cancelled: false)
        currentPeer = address
        setState(.connecting(server: rememberedServer))
        emit(.connect(address))
    }

    public func connected(_ handle: ConnectionHandle, peer: BluetoothAddress, now: Instant) {
        self.now = now
        guard case .connecting(let address, _, let cancelled) = phase, address == peer else {
            Log.info("pairing", "unexpected link \(handle) to \(peer); disconnecting")
            emit(.disconnect(handle))
            return
        }
        if cancelled && !seeking {
            // The user stopped looking while the link was coming up.
            phase = .disconnecting(handle)
            emit(.disconnect(handle))
            return
        }
        phase = .checking(handle, .readingServerName)
        emit(.readServerName(handle))
    }

    public func connectionFailed(peer: BluetoothAddress, now: Instant) {
        self.now = now
        guard case .connecting(let address, _, _) = phase, address == peer else { return }
        Log.info("pairing", "could not connect to \(peer)")
        pauseThenScan()
    }

    public func disconnected(_ handle: ConnectionHandle, now: Instant) {
        self.now = now
        switch phase {
        case .connected(let h, let server) where h == handle:
            Log.info("pairing", "link to \(server) lost")
            phase = .idle
            if unpairing {
                unpairing = false
                forgetRemembered()
                setState(.discover)
            } else if seeking {
                startRound()
            } else {
                showIdle()
            }
        case .checking(let h, _) where h == handle:
            if let peer = currentPeer { rejected.insert(peer) }
            phase = .idle
            if seeking { pauseThenScan() } else { showIdle() }
        case .disconnecting(let h) where h == handle:
            phase = .idle
            if seeking { pauseThenScan() } else { showIdle() }
        default:
            break
        }
    }

    // MARK: - GATT results

    public func serverNameRead(_ handle: ConnectionHandle, _ result: RemoteResult, now: Instant) {
        self.now = now
        guard case .checking(let h, .readingServerName) = phase, h == handle else { return }
        guard case .value(let bytes) = result, let name = validName(bytes) else {
            reject(handle, because: "SERVER NAME could not be read")
            return
        }
        if let remembered = rememberedServer, remembered != name {
            reject(handle, because: "it is \(name), not the remembered \(remembered)")
            return
        }
        phase = .checking(handle, .readingPairedName(server: name))
        setState(.connecting(server: name))
        emit(.readPairedClientName(handle))
    }

    public func pairedClientNameRead(_ handle: ConnectionHandle, _ result: RemoteResult, now: Instant) {
        self.now = now
        guard case .checking(let h, .readingPairedName(let server)) = phase, h == handle else { return }
        guard case .value(let bytes) = result, let paired = validName(bytes) else {
            reject(handle, because: "PAIRED CLIENT NAME could not be read")
            return
        }
        if rememberedServer != nil {
            // Rule 3: our phone, but it no longer names us.
            if paired != clientName {
                Log.info("pairing", "\(server) says it is paired with \(paired == PairedClientName.unpaired ? "nobody" : "another client"); forgetting it")
                forgetRemembered()
                seeking = false
                phase = .disconnecting(handle)
                emit(.disconnect(handle))
                setState(.discover)
                return
            }
        } else if paired != PairedClientName.unpaired && paired != clientName {
            reject(handle, because: "\(server) is paired with another client")
            return
        }
        if paired == clientName {
            phase = .checking(handle, .subscribing(server: server))
            emit(.subscribePairedClientName(handle))
        } else {
            phase = .checking(handle, .writingName(server: server))
            emit(.writePairedClientName(handle, clientName))
        }
    }

    public func writeCompleted(_ handle: ConnectionHandle, _ result: RemoteResult, now: Instant) {
        self.now = now
        if unpairing, case .connected(let h, _) = phase, h == handle {
            // Rule 7: UNPAIRED written (or not: the phone may be gone); forget either way.
            unpairing = false
            forgetRemembered()
            phase = .disconnecting(handle)
            emit(.disconnect(handle))
            setState(.discover)
            return
        }
        guard case .checking(let h, .writingName(let server)) = phase, h == handle else { return }
        switch result {
        case .done, .value:
            phase = .checking(handle, .subscribing(server: server))
            emit(.subscribePairedClientName(handle))
        case .attError(0x80):
            reject(handle, because: "\(server) is paired with another client (0x80)")
        case .attError(let code):
            reject(handle, because: "\(server) refused our name with ATT error 0x\(hex(code, digits: 2))")
        case .failed:
            reject(handle, because: "writing our name to \(server) failed")
        }
    }

    public func subscribeCompleted(_ handle: ConnectionHandle, _ result: RemoteResult, now: Instant) {
        self.now = now
        guard case .checking(let h, .subscribing(let server)) = phase, h == handle else { return }
        guard result == .done || result == .value([]) else {
            reject(handle, because: "subscribing to PAIRED CLIENT NAME on \(server) failed")
            return
        }
        phase = .connected(handle, server: server)
        rejected.removeAll()
        if rememberedServer != server {
            rememberedServer = server
            emit(.remember(server: server))
        }
        Log.info("pairing", "paired with \(server)")
        setState(.connected(server: server))
        emit(.serverAccepted(handle, server: server))
    }

    /// A notification of PAIRED CLIENT NAME (rule 6).
    public func pairedClientNameChanged(_ handle: ConnectionHandle, _ bytes: [UInt8], now: Instant) {
        self.now = now
        guard case .connected(let h, let server) = phase, h == handle else { return }
        let value = String(decoding: bytes, as: UTF8.self)
        guard value != clientName else { return }
        Log.info("pairing", "\(server) was unpaired on the phone; forgetting it")
        forgetRemembered()
        seeking = false
        phase = .disconnecting(handle)
        emit(.disconnect(handle))
        setState(.discover)
    }

    // MARK: - Time

    public var nextDeadline: Instant? {
        switch phase {
        case .connecting(_, let deadline, let cancelled): return cancelled ? nil : deadline
        case .pausing(let until): return until
        case .scanning(let since): return duty == .fast ? since.adding(milliseconds: timing.fastScanMilliseconds) : nil
        default: return nil
        }
    }

    public func handleTimeout(now: Instant) {
        self.now = now
        switch phase {
        case .connecting(let address, let deadline, false) where deadline <= now:
            Log.info("pairing", "connection to \(address) timed out; cancelling")
            phase = .connecting(address, deadline: deadline, cancelled: true)
            emit(.cancelConnect) // connectionFailed follows
        case .pausing(let until) where until <= now:
            scan()
        case .scanning(let since) where duty == .fast && since.adding(milliseconds: timing.fastScanMilliseconds) <= now:
            duty = .slow
            Log.info("pairing", "nothing acceptable found; scanning slowly")
            phase = .scanning(since: now)
            emit(.startScanning(.slow))
        default:
            break
        }
    }

    // MARK: - Internals

    private var isBusyWithLink: Bool {
        switch phase {
        case .connecting, .checking, .connected, .disconnecting: return true
        default: return false
        }
    }

    private func startRound() {
        rejected.removeAll()
        duty = .fast
        scan()
    }

    private func scan() {
        phase = .scanning(since: now)
        emit(.startScanning(duty))
        if let server = rememberedServer {
            setState(.remembered(server: server))
        } else {
            setState(.discovering)
        }
    }

    private func pauseThenScan() {
        currentPeer = nil
        guard seeking else {
            phase = .idle
            showIdle()
            return
        }
        phase = .pausing(until: now.adding(milliseconds: timing.retryPauseMilliseconds))
        if let server = rememberedServer { setState(.remembered(server: server)) } else { setState(.discovering) }
    }

    private func stopLooking() {
        switch phase {
        case .scanning:
            emit(.stopScanning)
            phase = .idle
        case .pausing:
            phase = .idle
        case .connecting(let a, let d, false):
            emit(.cancelConnect)
            phase = .connecting(a, deadline: d, cancelled: true)
        default:
            break
        }
    }

    private func reject(_ handle: ConnectionHandle, because reason: String) {
        Log.info("pairing", "not this phone: \(reason)")
        if let peer = currentPeer { rejected.insert(peer) }
        phase = .disconnecting(handle)
        emit(.disconnect(handle))
        if let server = rememberedServer { setState(.remembered(server: server)) } else if seeking { setState(.discovering) }
    }

    private func forgetRemembered() {
        if let server = rememberedServer {
            rememberedServer = nil
            emit(.forget(server: server))
        }
    }

    private func showIdle() {
        if let server = rememberedServer { setState(.remembered(server: server)) } else { setState(.discover) }
    }

    private func validName(_ bytes: [UInt8]) -> String? {
        guard bytes.count >= 1, bytes.count <= PairedClientName.maxLength else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func setState(_ s: PairingState) {
        guard s != state else { return }
        state = s
        emit(.stateChanged(s))
    }

    private func emit(_ action: PairingAction) { actions.append(action) }
}
