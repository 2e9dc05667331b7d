import BluetoothCore
import ScreenValues
import SMP

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
/// 5. a rejected phone is not retried in the same discovery round: by its
///    IRK when it is bonded, else by its SERVER NAME once read, else by address;
/// 6. UNPAIRED notified during the connection: disconnect and forget;
/// 7. unpair here: write UNPAIRED when the phone holds our name, then forget;
/// 8. addresses are not identities: the SERVER NAME and, once bonded, the
///    IRK are. A bonded phone is found by its IRK whatever it advertises
///    (docs/PROTOCOL.md §7: in the background iOS drops the service UUID);
///    the service UUID only finds phones not yet known;
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
        /// Our own unpair (rule 7) on a live link.
        case unpairing(ConnectionHandle, Unpairing)
        case disconnecting(ConnectionHandle)
    }

    /// Rule 7 on a link: UNPAIRED is written only to a phone that holds our
    /// name (writing it to a phone paired with another client would unpair
    /// that client), so a check still under way runs on until that is known.
    private enum Unpairing: Equatable {
        case readingServerName
        case readingPairedName
        /// Our name is being written: UNPAIRED follows once it is.
        case writingName
        /// UNPAIRED is being written; forget and disconnect once answered.
        case writingUnpaired
    }

    private enum Check: Equatable {
        case readingServerName
        case readingPairedName(server: String)
        case writingName(server: String)
        case subscribing(server: String)

        /// The SERVER NAME, once read.
        var server: String? {
            switch self {
            case .readingServerName: return nil
            case .readingPairedName(let s), .writingName(let s), .subscribing(let s): return s
            }
        }
    }

    private var phase: Phase = .idle
    private var duty: ScanDuty = .fast
    /// Looking for a phone at all (false after the user disconnected or unpaired).
    private var seeking = false
    /// It was looking when another phone became the phone (`standBy`): it
    /// looks again when that phone leaves (`resume`), unless the user
    /// stopped it meanwhile.
    private var resumesAfterStandBy = false
    /// Rule 5: phones refused in this round, by address and by SERVER NAME
    /// (a bonded phone's addresses resolve to its SERVER NAME, so it stays
    /// refused when its address rotates).
    private var rejected: Set<BluetoothAddress> = []
    private var rejectedServers: Set<String> = []
    private var currentPeer: BluetoothAddress?
    /// Which bonded phone an advertiser is (rule 8).
    private var bonded = AddressResolver<String>()
    @usableFromInline var actions: [PairingAction] = []
    private var now = Instant.zero

    public init(clientName: String, rememberedServer: String?) {
        self.clientName = clientName
        self.rememberedServer = rememberedServer
    }

    /// The stored bonds, by SERVER NAME: read at start and after each change.
    public func bondsChanged(_ bonds: [(server: String, bond: BondRecord)]) {
        bonded.setBonds(bonds.map { AddressResolver.Entry(peer: $0.server, bond: $0.bond) })
    }

    /// How many address hashes were computed to recognise bonded phones.
    public var addressHashesComputed: Int { bonded.hashesComputed }

    /// Inlinable: the core polls on every pass, mostly finding nothing,
    /// and inlined an empty poll is a test instead of a call.
    @inlinable public func pollAction() -> PairingAction? {
        actions.isEmpty ? nil : actions.removeFirst()
    }

    // MARK: - Power-on and user actions

    /// Power-on: look for the remembered phone, or discover when there is none.
    public func start(now: Instant) {
        self.now = now
        seeking = true
        resumesAfterStandBy = false
        startRound()
    }

    /// The user asks to discover (touch, key or the console's `scan`), or to
    /// connect to the remembered phone.
    public func discover(now: Instant) {
        self.now = now
        resumesAfterStandBy = false
        switch phase {
        case .disconnecting, .unpairing:
            // Asked while a link is still going down: look once it is gone.
            seeking = true
            return
        default:
            break
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
        resumesAfterStandBy = false
        stopLooking()
        switch phase {
        case .connected(let h, _), .checking(let h, _):
            phase = .disconnecting(h)
            emit(.disconnect(h))
        case .unpairing, .disconnecting:
            break // the link is going already
        default:
            phase = .idle
        }
        showIdle()
    }

    /// Another phone became the head unit's phone (one paired from the
    /// phone's Settings): stop looking, keep what is remembered. A link
    /// already being checked goes on; `discover` looks again.
    public func standBy(now: Instant) {
        self.now = now
        if seeking { resumesAfterStandBy = true }
        seeking = false
        stopLooking()
        if case .idle = phase { showIdle() }
    }

    /// The other phone left: look again if the head unit was looking when
    /// it came. After the user's Disconnect or Unpair it keeps waiting for
    /// the user (rule 9).
    public func resume(now: Instant) {
        guard resumesAfterStandBy else { return }
        discover(now: now)
    }

    /// The head unit is shutting down: no scan and no connection from now
    /// on, and a link that ends is not replaced.
    public func stop(now: Instant) {
        self.now = now
        seeking = false
        resumesAfterStandBy = false
        stopLooking()
    }

    /// The user unpairs on the head unit (rule 7).
    public func userUnpair(now: Instant) {
        self.now = now
        seeking = false
        resumesAfterStandBy = false
        stopLooking()
        // Forget once the phone no longer names us (or the link is gone).
        switch phase {
        case .connected(let h, _), .checking(let h, .subscribing):
            writeUnpaired(h)
        case .checking(let h, .writingName):
            phase = .unpairing(h, .writingName)
        case .checking(let h, .readingPairedName):
            phase = .unpairing(h, .readingPairedName)
        case .checking(let h, .readingServerName):
            phase = .unpairing(h, .readingServerName)
        case .unpairing:
            break
        default:
            forgetRemembered()
            if case .disconnecting = phase {} else { phase = .idle }
            setState(.discover)
        }
    }

    // MARK: - Radio events

    /// An advertising report. `advertisesService`: the NavigationNotifier
    /// service UUID is in its data, which only a phone with the app in the
    /// foreground sends.
    public func advertiserSeen(_ address: BluetoothAddress, connectable: Bool, advertisesService: Bool, now: Instant) {
        self.now = now
        guard case .scanning = phase, connectable, !rejected.contains(address) else { return }
        let owner = bonded.owner(of: address)
        if let owner, rejectedServers.contains(owner) { return }
        guard isCandidate(owner: owner, advertisesService: advertisesService) else { return }
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
            if seeking {
                startRound()
            } else {
                showIdle()
            }
        case .checking(let h, let check) where h == handle:
            refuseForTheRound(server: check.server)
            phase = .idle
            if seeking { pauseThenScan() } else { showIdle() }
        case .unpairing(let h, _) where h == handle:
            phase = .idle
            forgetRemembered()
            if seeking { pauseThenScan() } else { setState(.discover) }
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
        if case .unpairing(let h, .readingServerName) = phase, h == handle {
            phase = .unpairing(handle, .readingPairedName)
            emit(.readPairedClientName(handle))
            return
        }
        guard case .checking(let h, .readingServerName) = phase, h == handle else { return }
        guard case .value(let bytes) = result, let name = validName(bytes) else {
            reject(handle, because: "SERVER NAME could not be read")
            return
        }
        if rejectedServers.contains(name) {
            // Rule 5: the same phone under a new address; nothing is written.
            reject(handle, server: name, because: "\(name) was refused earlier in this round")
            return
        }
        if let remembered = rememberedServer, remembered != name {
            reject(handle, server: name, because: "it is \(name), not the remembered \(remembered)")
            return
        }
        phase = .checking(handle, .readingPairedName(server: name))
        setState(.connecting(server: name))
        emit(.readPairedClientName(handle))
    }

    public func pairedClientNameRead(_ handle: ConnectionHandle, _ result: RemoteResult, now: Instant) {
        self.now = now
        if case .unpairing(let h, .readingPairedName) = phase, h == handle {
            if case .value(let bytes) = result, validName(bytes) == clientName {
                writeUnpaired(handle)
            } else {
                finishUnpairing(handle)
            }
            return
        }
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
            reject(handle, server: server, because: "\(server) is paired with another client")
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
        if case .unpairing(let h, let step) = phase, h == handle {
            switch (step, result) {
            case (.writingName, .done), (.writingName, .value):
                writeUnpaired(handle) // our name landed: take it back
            case (.writingName, _), (.writingUnpaired, _):
                // Rule 7: UNPAIRED written (or not: the phone may be gone); forget either way.
                finishUnpairing(handle)
            default:
                break
            }
            return
        }
        guard case .checking(let h, .writingName(let server)) = phase, h == handle else { return }
        switch result {
        case .done, .value:
            phase = .checking(handle, .subscribing(server: server))
            emit(.subscribePairedClientName(handle))
        case .attError(0x80):
            reject(handle, server: server, because: "\(server) is paired with another client (0x80)")
        case .attError(let code):
            reject(handle, server: server, because: "\(server) refused our name with ATT error 0x\(hex(code, digits: 2))")
        case .failed:
            reject(handle, server: server, because: "writing our name to \(server) failed")
        }
    }

    public func subscribeCompleted(_ handle: ConnectionHandle, _ result: RemoteResult, now: Instant) {
        self.now = now
        guard case .checking(let h, .subscribing(let server)) = phase, h == handle else { return }
        guard result == .done || result == .value([]) else {
            reject(handle, server: server, because: "subscribing to PAIRED CLIENT NAME on \(server) failed")
            return
        }
        phase = .connected(handle, server: server)
        rejected.removeAll()
        rejectedServers.removeAll()
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
        case .connecting, .checking, .connected, .unpairing, .disconnecting: return true
        default: return false
        }
    }

    /// Rules 2, 3 and 8: which advertisers are worth a connection. `owner`
    /// is the SERVER NAME of the bond that recognises the address.
    private func isCandidate(owner: String?, advertisesService: Bool) -> Bool {
        if let remembered = rememberedServer {
            if let owner { return owner == remembered }
            // Not recognised: it can only be ours when our phone cannot be
            // recognised by address (no bond yet, or no IRK) and it shows the service.
            return advertisesService && !bonded.recognises(remembered)
        }
        return owner != nil || advertisesService
    }

    private func writeUnpaired(_ handle: ConnectionHandle) {
        phase = .unpairing(handle, .writingUnpaired)
        emit(.writePairedClientName(handle, PairedClientName.unpaired))
    }

    private func finishUnpairing(_ handle: ConnectionHandle) {
        forgetRemembered()
        phase = .disconnecting(handle)
        emit(.disconnect(handle))
        setState(.discover)
    }

    private func startRound() {
        rejected.removeAll()
        rejectedServers.removeAll()
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

    private func reject(_ handle: ConnectionHandle, server: String? = nil, because reason: String) {
        Log.info("pairing", "not this phone: \(reason)")
        refuseForTheRound(server: server)
        phase = .disconnecting(handle)
        emit(.disconnect(handle))
        if let server = rememberedServer { setState(.remembered(server: server)) } else if seeking { setState(.discovering) }
    }

    /// Rule 5: the current peer's address, and its SERVER NAME when known,
    /// are not tried again this round. The remembered phone is kept out of
    /// the names: what fails with it (a read, a lost link) is passing, and a
    /// phone that no longer names us is forgotten instead (rule 3).
    private func refuseForTheRound(server: String?) {
        if let peer = currentPeer { rejected.insert(peer) }
        if let server, server != rememberedServer { rejectedServers.insert(server) }
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
