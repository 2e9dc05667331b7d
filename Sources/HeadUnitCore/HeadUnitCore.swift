import AMS
import ANCS
import ATT
import BluetoothCore
import GATT
import HCI
import L2CAP
import Notifications
import NavigationNotifier
import NotifBridge
import SMP
import ScreenValues

/// The head unit without its I/O: the HCI host, L2CAP, one `PhoneLink` per
/// connection (GATT bearer, security manager, the NavigationNotifier client,
/// ANCS and AMS) and the pairing routine, fed bytes, time, console commands
/// and the driver's actions, like the protocol layers it wires.
///
/// Inputs: `receive` (H4 bytes from the controller), `hostEvent`,
/// `handleTimeout`, `command`, `perform`/`media`/`confirmComparison`,
/// `keysStored` (the NotifBridge key file), each with the time it happens
/// at, and the `StoredState` given at start.
/// Outputs, polled by the shell: `pollTransmit` (packets to the controller),
/// `pollEvent` (the event log), `pollStateWrite` (the state files),
/// `pollConsoleLine`, `screenModel` and `nextDeadline`.
///
/// Every input ends in `pump()`, which moves what each layer produced to
/// the next one until nothing is left.
public final class HeadUnitCore {
    /// The HCI host. The shell's transport driver writes what it transmits
    /// and hands bytes read to `receive`.
    public let host: Host
    public let pairing: PairingRoutine
    public let notifications: NotificationModel
    /// Every connected phone; made in `linkUp`, ended in `linkDown`.
    public private(set) var links = ConnectionTable<PhoneLink>()
    let settings: CoreSettings
    let clock: CoreClock
    var l2cap = L2CAPLayer()
    let database: GATTDatabase
    /// Its Database Hash, for bonded clients' Service Changed (HeadUnitCore+ClientState).
    let databaseFingerprint: [UInt8]
    /// The NotifBridge receiver, nil when the configuration turns it off.
    let notifBridge: NotifBridgeHost?
    /// Shared by every link: repeated failures with one phone back off.
    let attempts = PairingAttemptLimiter()
    private var bonds: [String: BondRecord]
    /// The GATT server's state of each bonded client, by bond key
    /// (HeadUnitCore+ClientState).
    var clientStates: [String: BondedClientState] = [:]
    let localIRK: IdentityResolvingKey?
    /// App names learned so far: each ANCS session starts with them.
    var appNames: AppNameCache
    private var advertisers = Advertisers()
    /// The head unit as an accessory (Settings pairing, NotifBridge); nil
    /// when it does not advertise.
    var accessory: Accessory?
    /// The scan the pairing routine wants; applied whenever the controller is ready.
    private var wantedScan: ScanDuty?
    /// The controller was ready once: the pairing routine and advertising run.
    private(set) var started = false
    private var pumping = false
    private var repump = false
    let startedAt: Instant

    /// One line for the driver about something to do on the phone, in the
    /// screen's language when drawn, in English in the `error` event.
    public internal(set) var hint: ScreenTextKey?
    public internal(set) var nowPlaying: NowPlayingState?
    /// The passkey on screen while the phone waits for it.
    public internal(set) var passkeyShown: String?
    /// The link whose Numeric Comparison waits for the confirm key.
    var comparisonPending: ConnectionHandle?
    /// The phone's time of day, once read (kept after the link goes).
    public internal(set) var phoneClock: PhoneClock?

    private var events = FIFO<CoreEvent>()
    private var writes = FIFO<StateWrite>()
    private var consoleLines = FIFO<String>()

    public init(settings: CoreSettings, stored: StoredState, now: Instant, host: Host = Host()) {
        self.settings = settings
        self.host = host
        clock = CoreClock(now)
        startedAt = now
        notifications = NotificationModel(filter: settings.filter)
        bonds = stored.bonds
        localIRK = stored.localIRK
        appNames = stored.appNames
        pairing = PairingRoutine(clientName: stored.clientName, rememberedServer: stored.rememberedServer)
        // The one name: GAP's Device Name (which iOS shows once connected) is the advertised one.
        let name = HeadUnitName.of(deviceName: settings.deviceName, clientName: stored.clientName, notifBridge: settings.notifBridge)
        database = GATTDatabase(deviceName: name)
        notifBridge = settings.notifBridge
            ? NotifBridgeHost(database: database, keys: stored.notifBridgeKeys, model: notifications, now: now) : nil
        // After every service is in it (NotifBridge adds its own).
        databaseFingerprint = HeadUnitCore.fingerprint(of: database)
        if settings.advertises, let identity = stored.identityAddress {
            accessory = Accessory(identity: identity, name: name)
            // Before the controller starts: Set Random Address must precede any scan.
            host.setIdentityAddress(identity)
        }
        clientStates = HeadUnitCore.decodeClientStates(stored.clientStates, bonds: stored.bonds)
        bondsChanged()
        Log.info("headunit", "client name \(stored.clientName), remembered server \(pairing.rememberedServer ?? "none")")
        emit(.state(pairing.state))
    }

    // MARK: - Inputs

    /// The transport is open: bring the controller up.
    public func start(now: Instant) {
        clock.now = now
        host.start(now: now)
        pump()
    }

    /// Bytes read from the controller: any cut of the H4 stream.
    public func receive(_ bytes: [UInt8], now: Instant) {
        clock.now = now
        host.receive(bytes, now: now)
        pump()
    }

    /// A host event raised outside `receive` (the transport closed, a
    /// command timed out) that the shell's driver delivered.
    public func hostEvent(_ event: HostEvent, now: Instant) {
        clock.now = now
        handle(event, now: now)
        pump()
    }

    /// When `handleTimeout` is next due.
    public var nextDeadline: Instant? {
        var deadline = earliest(earliest(pairing.nextDeadline, host.nextDeadline), earliest(accessoryDeadline, l2cap.nextDeadline))
        for link in links.values { deadline = earliest(deadline, link.nextDeadline) }
        return earliest(deadline, notifBridge?.receiver.nextDeadline)
    }

    public func handleTimeout(now: Instant) {
        clock.now = now
        host.handleTimeout(now: now)
        pairing.handleTimeout(now: now)
        l2cap.handleTimeout(now: now)
        accessoryTimeout(now: now)
        for link in links.values { link.handleTimeout(now: now) }
        notifBridge?.receiver.handleTimeout(now: now)
        pump()
    }

    /// Ends every link politely (the shell is shutting down); false when
    /// there were none. Nothing new starts after it: a phone paired from
    /// Settings would reconnect at once if we still advertised, and the
    /// routine would take its link's end for a link lost and connect again
    /// before the process exits.
    public func disconnectAll(now: Instant) -> Bool {
        clock.now = now
        host.stopAdvertising()
        pairing.stop(now: now)
        let handles = host.links.keys.sorted()
        for handle in handles { host.disconnect(handle, reason: .remoteUserTerminated) }
        pump()
        return !handles.isEmpty
    }

    // MARK: - Outputs

    /// The next packet for the controller.
    public func pollTransmit(now: Instant) -> HCIPacket? { host.pollTransmit(now: now) }
    public func pollEvent() -> CoreEvent? { events.popFirst() }
    public func pollStateWrite() -> StateWrite? { writes.popFirst() }
    /// A line for the console (answers to commands, the passkey).
    public func pollConsoleLine() -> String? { consoleLines.popFirst() }

    func emit(_ event: CoreEvent) { events.append(event) }
    func write(_ change: StateWrite) { writes.append(change) }
    func say(_ text: String) { consoleLines.append(text) }

    // MARK: - Host events

    private func handle(_ event: HostEvent, now: Instant) {
        switch event {
        case .ready:
            if !started {
                started = true
                if settings.findsNavigationNotifierPhones { pairing.start(now: now) }
                startAccessory(now: now)
            } else if let duty = wantedScan {
                startScan(duty)
            }
        case .controllerReset(let reason):
            emit(.error(what: "controller", detail: reason))
        case .advertisingReport(let report):
            guard let entry = advertisers.take(report) ?? advertisers.entries[report.address] else { return }
            pairing.advertiserSeen(entry.address, connectable: entry.connectable,
                                   advertisesService: entry.isNavigationNotifierPhone, now: now)
        case .connected(let link):
            linkUp(link, now: now)
        case let .connectionFailed(peer, _):
            pairing.connectionFailed(peer: peer, now: now)
        case let .disconnected(handle, reason):
            Log.info("headunit", "link \(handle) down: \(reason)")
            linkDown(handle, now: now)
        case let .l2capFrame(handle, frame):
            l2cap.receive(frame, on: handle)
        case let .encryptionChanged(handle, status, enabled):
            encryptionChanged(handle, status: status, enabled: enabled)
        case let .encryptionKeyRefreshed(handle, status):
            encryptionChanged(handle, status: status, enabled: true)
        case let .longTermKeyRequest(handle, random, ediv):
            longTermKeyRequested(handle, random: random, ediv: ediv, now: now)
        case .connectionUpdated, .dataLengthChanged, .commandFailed:
            break
        }
    }

    /// The one place a link is made.
    private func linkUp(_ link: Link, now: Instant) {
        l2cap.linkConnected(L2CAPLink(handle: link.handle, role: link.role, peer: link.peer))
        let phone = PhoneLink(link: link, database: database, clock: clock)
        phone.onProgress = { [unowned(unsafe) self] in self.pump() }
        links[link.handle] = phone
        notifBridgeLinkUp(phone)
        // 32-byte names need an ATT_MTU of at least 35: exchange first.
        phone.bearer.exchangeMTU()
        // A phone that connected to us is not the pairing routine's.
        if link.role == .central {
            pairing.connected(link.handle, peer: link.peer, now: now)
        } else {
            accessoryLinkUp(phone, link, now: now)
        }
    }

    /// The one place a link ends, with everything on it.
    private func linkDown(_ handle: ConnectionHandle, now: Instant) {
        let gone = links.removeValue(forKey: handle)
        gone?.close(now: now)
        notifBridgeLinkDown(gone)
        // Another link's passkey stays on screen.
        if gone?.passkeyOnScreen == true { passkeyShown = nil }
        if comparisonPending == handle { comparisonPending = nil }
        // What is shown came from the phone: a link that was not the phone
        // takes nothing with it.
        if gone?.isThePhone == true {
            notifications.clear()
            nowPlaying = nil
        }
        l2cap.linkDisconnected(handle)
        if let gone { accessoryLinkDown(gone, now: now) }
        pairing.disconnected(handle, now: now)
    }

    // MARK: - Moving work between layers

    func pump() {
        // An input that arrives while pumping (a GATT answer's completion)
        // asks for another round instead of being left queued.
        guard !pumping else {
            repump = true
            return
        }
        pumping = true
        defer { pumping = false }
        let now = clock.now
        var progressed = true
        while progressed {
            progressed = false
            if repump {
                repump = false
                progressed = true
            }
            while let event = host.pollEvent() {
                handle(event, now: now)
                progressed = true
            }
            while let action = pairing.pollAction() {
                perform(action, now: now)
                progressed = true
            }
            progressed = pumpNotifBridge(now: now) || progressed
            for (handle, link) in links {
                let bearer = link.bearer
                while let pdu = bearer.pollTransmit(now: now) {
                    l2cap.send(pdu, on: handle, channel: .att)
                    progressed = true
                }
                while let event = bearer.pollEvent() {
                    progressed = true
                    switch event {
                    case .transactionTimeout:
                        Log.error("gatt", "ATT transaction timeout on \(handle); disconnecting")
                        host.disconnect(handle)
                    case .mtuChanged(let mtu):
                        Log.debug("gatt", "ATT_MTU on \(handle) is \(mtu)")
                    case .clientStateChanged:
                        storeClientState(of: link)
                    }
                }
            }
            progressed = pumpAppleServices(now: now) || progressed
            for link in links.values {
                guard let sm = link.security else { continue }
                while let output = sm.pollOutput() {
                    progressed = true
                    perform(output, on: link, sm, now: now)
                }
            }
            while let event = l2cap.pollEvent() {
                progressed = true
                switch event {
                case let .transmit(handle, frame):
                    host.sendL2CAP(frame, on: handle)
                case let .att(handle, pdu):
                    links[handle]?.bearer.receive(pdu)
                case let .smp(handle, pdu):
                    if let sm = links[handle]?.security {
                        sm.receive(pdu, now: now)
                    } else {
                        Log.info("smp", "SMP PDU on \(handle) before the phone was accepted; ignored")
                    }
                case let .updateConnectionParameters(handle, parameters):
                    host.send(.leConnectionUpdate(handle, parameters))
                }
            }
            while let answer = l2cap.pollParameterUpdateAnswer() {
                Log.debug("l2cap", "parameter update on \(answer.handle): \(answer.outcome)")
            }
            if repump { progressed = true }
        }
    }

    private func perform(_ action: PairingAction, now: Instant) {
        switch action {
        case .startScanning(let duty):
            wantedScan = duty
            advertisers = Advertisers()
            if host.isReady { startScan(duty) }
        case .stopScanning:
            wantedScan = nil
            host.stopScanning()
        case .connect(let address):
            host.connect(to: address)
        case .cancelConnect:
            host.cancelConnect()
        case .disconnect(let handle):
            host.disconnect(handle)
        case .readServerName(let handle):
            links[handle]?.navigationNotifier.readServerName { [unowned(unsafe) self] r in
                self.pairing.serverNameRead(handle, r, now: self.clock.now)
            }
        case .readPairedClientName(let handle):
            links[handle]?.navigationNotifier.readPairedClientName { [unowned(unsafe) self] r in
                self.pairing.pairedClientNameRead(handle, r, now: self.clock.now)
            }
        case let .writePairedClientName(handle, name):
            links[handle]?.navigationNotifier.writePairedClientName(name) { [unowned(unsafe) self] r in
                self.pairing.writeCompleted(handle, r, now: self.clock.now)
            }
        case .subscribePairedClientName(let handle):
            links[handle]?.navigationNotifier.subscribePairedClientName(onValue: { [unowned(unsafe) self] value in
                self.pairing.pairedClientNameChanged(handle, value, now: self.clock.now)
            }) { [unowned(unsafe) self] r in self.pairing.subscribeCompleted(handle, r, now: self.clock.now) }
        case .remember(let server):
            write(.rememberServer(server))
        case .forget(let server):
            Log.info("headunit", "forgetting \(server) and its bond")
            write(.forgetServer)
            deleteBond(server)
        case .stateChanged(let state):
            Log.info("headunit", "state: \(state.text)")
            emit(.state(state))
        case let .serverAccepted(handle, server):
            Log.info("headunit", "\(server) accepted on \(handle)")
            startSecurity(handle, server: server, now: now)
        }
    }

    func bond(for server: String) -> BondRecord? { bonds[server] }

    /// Every bond, by SERVER NAME.
    public var allBonds: [(server: String, bond: BondRecord)] {
        bonds.keys.sorted().compactMap { server in bonds[server].map { (server, $0) } }
    }

    func saveBond(_ bond: BondRecord, for server: String) {
        bonds[server] = bond
        clientStateRestarts(server)
        write(.saveBond(bond, server: server))
        bondsChanged()
    }

    func deleteBond(_ server: String) {
        bonds[server] = nil
        clientStates[server] = nil
        write(.deleteBond(server: server))
        bondsChanged()
    }

    /// The pairing routine recognises bonded phones by their IRKs.
    /// Bonds made as central: the routine finds those phones; bonds made as
    /// peripheral (Settings): the advertising audience.
    private func bondsChanged() {
        pairing.bondsChanged(allBonds.filter { $0.bond.localRole == .initiator })
        accessoryBondsChanged()
    }

    /// Advertisers the current scan holds.
    var advertisersSeen: Int { advertisers.entries.count }

    private func startScan(_ duty: ScanDuty) {
        switch duty {
        case .fast: host.startScanning(active: true, interval: 0x0060, window: 0x0030)
        case .slow: host.startScanning(active: true, interval: 0x0800, window: 0x0030)
        }
    }
}
