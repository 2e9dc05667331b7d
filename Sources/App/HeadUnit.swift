import AMS
import ANCS
import ATT
import BluetoothCore
import Display
import GATT
import Graphics
import HCI
import L2CAP
import Notifications
import Pairing
import Platform
import SMP
import Console
import Config

/// The running head unit: one event loop driving the HCI host, L2CAP, a
/// GATT bearer per link and the pairing routine, with the event log and the
/// state files. Every input ends in `pump()`, which moves what each layer
/// produced to the next one until nothing is left, then arms one timer for
/// the earliest deadline of any layer.
final class HeadUnit {
    struct Options {
        var spec: TransportSpec
        var stateDirectory: String
        var tracePath: String?
        var eventsPath: String?
        var consoleDevice: String?
        var display: DisplaySpec = .none
        var configuration = HeadUnitConfiguration()
        /// The hardware watchdog to pet from the event loop (`--watchdog`).
        var watchdogDevice: String?
        var watchdogTimeoutSeconds = Watchdog.defaultTimeoutSeconds
    }

    let loop: EventLoop
    let driver: HCIDriver
    let events: EventLog
    let store: PairingStore
    let bonds: BondStore
    let stateFiles: StateFiles
    let pairing: PairingRoutine
    var host: Host { driver.host }
    private var l2cap = L2CAPLayer()
    private let database: GATTDatabase
    var bearers: [ConnectionHandle: GATTBearer] = [:]
    private var phones: [ConnectionHandle: NavigationNotifierClient] = [:]
    private var security: [ConnectionHandle: SecurityManager] = [:]
    /// The SERVER NAME of the phone on each accepted link.
    var servers: [ConnectionHandle: String] = [:]
    /// Shared by every link: repeated failures with one phone back off.
    private let attempts = PairingAttemptLimiter()
    private let pairingConfiguration: PairingConfiguration
    private var advertisers = Advertisers()
    /// The scan the pairing routine wants; applied whenever the controller is ready.
    private var wantedScan: ScanDuty?
    private var started = false
    private var timer: EventLoop.TimerID?
    private var pumping = false
    private var repump = false
    var console: Console?
    /// One line for the driver about something to do on the phone.
    var hint: String?
    private let startedAt = Clock.now()
    /// ANCS and AMS on each encrypted link.
    var services: [ConnectionHandle: AppleServices] = [:]
    let notifications: NotificationModel
    let configuration: HeadUnitConfiguration
    /// The process exit status once the loop ends (`reboot` sets it).
    var exitStatus: Int32 = 0
    var input: InputDevices?
    var nowPlaying: NowPlayingState?
    /// The passkey on screen while the phone waits for it.
    var passkeyShown: String?
    /// The link whose Numeric Comparison waits for the confirm key.
    var comparisonPending: ConnectionHandle?
    /// The phone's time of day, once read.
    var phoneClock: PhoneClock?
    let screen: Screen
    var screenTimer: EventLoop.TimerID?
    /// The hardware watchdog, petted by a timer of `loop`.
    private(set) var watchdog: Watchdog?
    /// Why the watchdog asked for is not in use, for `status`.
    private var watchdogProblem: String?

    init(options: Options) throws(SystemError) {
        configuration = options.configuration
        pairingConfiguration = options.configuration.pairing
        notifications = NotificationModel(filter: options.configuration.filter)
        loop = try EventLoop()
        // The watchdog first: a previous run may have left it armed.
        if let device = options.watchdogDevice {
            do {
                let w = try Watchdog(device: device, timeoutSeconds: options.watchdogTimeoutSeconds)
                w.start(on: loop)
                watchdog = w
                Log.info("watchdog", "\(w.description), petted every \(w.intervalMilliseconds) ms from the event loop")
            } catch {
                watchdogProblem = "\(error)"
                Log.error("watchdog", "\(error); running without the watchdog (a hung head unit will not reset the board)")
            }
        }
        driver = HCIDriver(spec: options.spec, loop: loop)
        if let path = options.tracePath { driver.trace = try BTSnoopWriter(path: path) }
        events = EventLog(path: options.eventsPath)
        let files = StateFiles(directory: options.stateDirectory)
        try files.prepare()
        // A full disk or a read-only data partition: the error is reported
        // each time, the old files stay as they were, and the firmware keeps
        // going on what it holds in memory.
        let eventLog = events
        files.failures.onFailure = { error in eventLog.error("state", "\(error); keeping the old state, running from memory") }
        stateFiles = files
        store = PairingStore(files: files)
        bonds = BondStore(files: files)
        let clientName = store.clientName()
        pairing = PairingRoutine(clientName: clientName, rememberedServer: store.rememberedServer())
        pairing.bondsChanged(bonds.all())
        database = GATTDatabase(deviceName: configuration.deviceName ?? "NavigationNotifier \(clientName)")
        let fonts = options.display == .none ? nil
            : FontLocator.load(configured: configuration.fontsDirectory, fallbacks: configuration.fallbackFonts)
        screen = Screen(spec: options.display, options: configuration.displayOptions, fonts: fonts, loop: loop, events: events)
        Log.info("headunit", "client name \(clientName), remembered server \(pairing.rememberedServer ?? "none")")
        driver.onEvent = { [unowned(unsafe) self] event in self.handle(event) }
        loop.onTerminationSignal = { [unowned(unsafe) self] in self.shutDownGracefully() }
        if let device = options.consoleDevice {
            do {
                let c = try Console(device: device, loop: loop)
                c.onCommand = { [unowned(unsafe) self] command in self.consoleCommand(command) }
                console = c
            } catch {
                Log.error("console", "\(error); running without a console")
            }
        }
    }

    /// SIGINT/SIGTERM: end links politely so the phone knows at once, then stop.
    private func shutDownGracefully() {
        let links = host.links.keys.sorted()
        guard !links.isEmpty else {
            loop.stop()
            return
        }
        for handle in links { host.disconnect(handle, reason: .remoteUserTerminated) }
        driver.flush()
        loop.schedule(at: Clock.now().adding(milliseconds: 500)) { [unowned(unsafe) self] in self.loop.stop() }
    }

    // MARK: - Console

    func statusText() -> String {
        var lines: [String] = []
        lines.append("state: \(pairing.state.text)")
        lines.append("client name: \(pairing.clientName)")
        lines.append("remembered server: \(pairing.rememberedServer ?? "none")")
        lines.append("controller: \(host.isReady ? "ready \(host.controller.address)" : "not ready") on \(driver.spec)")
        for link in host.links.values.sorted(by: { $0.handle < $1.handle }) {
            let mtu = bearers[link.handle]?.mtu ?? 23
            lines.append("link \(link.handle): \(link.peer), interval \(link.interval), \(link.encrypted ? "encrypted" : "not encrypted"), ATT_MTU \(mtu)")
        }
        if let clock = phoneClock {
            lines.append("clock: \(clock.text(at: Clock.now())) (from the phone)")
        } else {
            lines.append("clock: \(HeadUnit.clockText()) (system; the phone has not told the time)")
        }
        lines.append("state files: \(stateFilesText())")
        lines.append("caches: \(cachesText())")
        lines.append("uptime: \(Clock.now().millisecondsSince(startedAt) / 1000) s")
        lines.append("watchdog: \(watchdog?.description ?? watchdogProblem.map { "not in use (\($0))" } ?? "none")")
        return lines.joined(separator: "\n")
    }

    /// How full each bounded table is (the soak test checks them against their bounds).
    private func cachesText() -> String {
        var parts: [String] = []
        for handle in services.keys.sorted() {
            guard let ancs = services[handle]?.ancs else { continue }
            parts.append("ancs tracked \(ancs.trackedCount)/\(ancs.configuration.maximumNotifications)")
            parts.append("ancs queued \(ancs.queuedRequests)")
            parts.append("app names \(ancs.appNames.count)/\(ancs.appNames.capacity)")
        }
        parts.append("shown \(notifications.shown.count)")
        if let glyphs = screen.glyphCache {
            parts.append("glyphs \(glyphs.count) \(glyphs.bytes)/\(glyphs.budget) bytes")
        }
        parts.append("advertisers \(advertisers.entries.count)")
        return parts.joined(separator: ", ")
    }

    private func stateFilesText() -> String {
        let failures = stateFiles.failures
        guard let last = failures.last else { return "ok in \(stateFiles.directory)" }
        if failures.failing {
            return "WRITE FAILED (\(last)); old state kept, running from memory (\(failures.count) failed writes)"
        }
        return "ok in \(stateFiles.directory) (\(failures.count) failed writes earlier, last: \(last))"
    }

    func run() -> Int32 {
        events.state(pairing.state)
        driver.start()
        startInput()
        updateScreen()
        loop.run()
        input?.stop()
        driver.shutdown()
        screen.close()
        return exitStatus
    }

    // MARK: - Host events

    private func handle(_ event: HostEvent) {
        let now = Clock.now()
        switch event {
        case .ready:
            if !started {
                started = true
                pairing.start(now: now)
            } else if let duty = wantedScan {
                startScan(duty)
            }
        case .controllerReset(let reason):
            events.error("controller", reason)
        case .advertisingReport(let report):
            guard let entry = advertisers.take(report) ?? advertisers.entries[report.address] else { return }
            pairing.advertiserSeen(entry.address, connectable: entry.connectable,
                                   advertisesService: entry.isNavigationNotifierPhone, now: now)
        case .connected(let link):
            l2cap.linkConnected(L2CAPLink(handle: link.handle, role: link.role, peer: link.peer))
            let bearer = GATTBearer(handle: link.handle, database: database)
            bearers[link.handle] = bearer
            phones[link.handle] = NavigationNotifierClient(bearer: bearer)
            // 32-byte names need an ATT_MTU of at least 35: exchange first.
            bearer.exchangeMTU()
            pairing.connected(link.handle, peer: link.peer, now: now)
        case let .connectionFailed(peer, _):
            pairing.connectionFailed(peer: peer, now: now)
        case let .disconnected(handle, reason):
            Log.info("headunit", "link \(handle) down: \(reason)")
            bearers.removeValue(forKey: handle)?.close()
            phones[handle] = nil
            security[handle] = nil
            servers[handle] = nil
            passkeyShown = nil
            if let gone = services.removeValue(forKey: handle) {
                gone.disconnected(now: now)
                notifications.clear()
                nowPlaying = nil
            }
            l2cap.linkDisconnected(handle)
            pairing.disconnected(handle, now: now)
        case let .l2capFrame(handle, frame):
            l2cap.receive(frame, on: handle)
        case let .encryptionChanged(handle, status, enabled):
            encryptionChanged(handle, status: status, enabled: enabled)
        case let .encryptionKeyRefreshed(handle, status):
            encryptionChanged(handle, status: status, enabled: true)
        case .connectionUpdated, .dataLengthChanged, .longTermKeyRequest, .commandFailed:
            break
        }
        pump()
    }

    // MARK: - Moving work between layers

    func pump() {
        // An input that arrives while pumping (flushing the driver delivers
        // host events) asks for another round instead of being left queued.
        guard !pumping else {
            repump = true
            return
        }
        pumping = true
        defer { pumping = false }
        let now = Clock.now()
        var progressed = true
        while progressed {
            progressed = false
            if repump {
                repump = false
                progressed = true
            }
            while let action = pairing.pollAction() {
                perform(action)
                progressed = true
            }
            for (handle, bearer) in bearers {
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
                    }
                }
            }
            progressed = pumpAppleServices(now: now) || progressed
            for (handle, sm) in security {
                while let output = sm.pollOutput() {
                    progressed = true
                    perform(output, on: handle, sm)
                }
            }
            while let event = l2cap.pollEvent() {
                progressed = true
                switch event {
                case let .transmit(handle, frame):
                    host.sendL2CAP(frame, on: handle)
                case let .att(handle, pdu):
                    bearers[handle]?.receive(pdu)
                case let .smp(handle, pdu):
                    if let sm = security[handle] {
                        sm.receive(pdu, now: now)
                    } else {
                        Log.info("smp", "SMP PDU on \(handle) before the phone was accepted; ignored")
                    }
                case let .updateConnectionParameters(handle, parameters):
                    host.send(.leConnectionUpdate(handle, parameters))
                }
            }
            // Writing out can deliver host events, which may ask for more.
            driver.flush()
            if repump { progressed = true }
        }
        armTimer()
        updateScreen()
    }

    private func armTimer() {
        var deadline = pairing.nextDeadline
        for bearer in bearers.values { deadline = earliest(deadline, bearer.nextDeadline) }
        for sm in security.values { deadline = earliest(deadline, sm.nextDeadline) }
        for s in services.values { deadline = earliest(deadline, s.nextDeadline) }
        loop.reschedule(&timer, at: deadline) { [unowned(unsafe) self] in
            self.timer = nil
            let now = Clock.now()
            self.pairing.handleTimeout(now: now)
            for bearer in self.bearers.values { bearer.handleTimeout(now: now) }
            for sm in self.security.values { sm.handleTimeout(now: now) }
            for s in self.services.values { s.handleTimeout(now: now) }
            self.pump()
        }
    }

    private func perform(_ action: PairingAction) {
        let now = Clock.now()
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
            phones[handle]?.readServerName { [unowned(unsafe) self] r in self.pairing.serverNameRead(handle, r, now: Clock.now()) }
        case .readPairedClientName(let handle):
            phones[handle]?.readPairedClientName { [unowned(unsafe) self] r in self.pairing.pairedClientNameRead(handle, r, now: Clock.now()) }
        case let .writePairedClientName(handle, name):
            phones[handle]?.writePairedClientName(name) { [unowned(unsafe) self] r in self.pairing.writeCompleted(handle, r, now: Clock.now()) }
        case .subscribePairedClientName(let handle):
            phones[handle]?.subscribePairedClientName(onValue: { [unowned(unsafe) self] value in
                self.pairing.pairedClientNameChanged(handle, value, now: Clock.now())
            }) { [unowned(unsafe) self] r in self.pairing.subscribeCompleted(handle, r, now: Clock.now()) }
        case .remember(let server):
            store.remember(server)
        case .forget(let server):
            Log.info("headunit", "forgetting \(server) and its bond")
            store.forgetServer()
            bonds.delete(for: server)
            bondsChanged()
        case .stateChanged(let state):
            Log.info("headunit", "state: \(state.text)")
            events.state(state)
        case let .serverAccepted(handle, server):
            Log.info("headunit", "\(server) accepted on \(handle)")
            startSecurity(handle, server: server)
        }
        _ = now
    }

    /// The pairing routine recognises bonded phones by their IRKs.
    func bondsChanged() { pairing.bondsChanged(bonds.all()) }

    /// The driver pressed the confirm key while both screens show the same number.
    func confirmComparison(now: Instant) {
        guard let handle = comparisonPending else { return }
        comparisonPending = nil
        passkeyShown = nil
        security[handle]?.confirmNumericComparison(true, now: now)
    }

    // MARK: - Security

    private func startSecurity(_ handle: ConnectionHandle, server: String) {
        guard let link = host.links[handle] else { return }
        servers[handle] = server
        var configuration = pairingConfiguration
        if let irk = bonds.localIRK() {
            configuration.localIdentity = LocalIdentity(irk: irk, address: host.controller.address)
        }
        let bond = bonds.bond(for: server)
        let sm = SecurityManager(configuration: configuration, localAddress: host.controller.address,
                                 peerAddress: link.peer, bond: bond, limiter: attempts)
        security[handle] = sm
        sm.secure(now: Clock.now())
    }

    private func encryptionChanged(_ handle: ConnectionHandle, status: HCIStatus, enabled: Bool) {
        guard let sm = security[handle] else { return }
        guard status.isSuccess else {
            sm.encryptionFailed(status: status.code, now: Clock.now())
            return
        }
        guard enabled else {
            sm.encryptionChanged(enabled: false, keySize: nil, now: Clock.now())
            return
        }
        // The key size decides whether the link is usable (KNOB): ask the controller.
        host.send(.readEncryptionKeySize(handle)) { [unowned(unsafe) self] result in
            var keySize: UInt8? = nil
            if case .complete(let p) = result, p.count >= 4, p[0] == 0 { keySize = p[3] }
            self.security[handle]?.encryptionChanged(enabled: true, keySize: keySize, now: Clock.now())
            self.pump()
        }
    }

    private func perform(_ output: SecurityManagerOutput, on handle: ConnectionHandle, _ sm: SecurityManager) {
        let server = servers[handle]
        switch output {
        case .send(let pdu):
            l2cap.send(pdu, on: handle, channel: .smp)
        case .displayPasskey(let passkey):
            Log.info("smp", "passkey for \(server ?? "the phone"): type it on the phone")
            events.emit("passkey") { $0.field("passkey", passkey.text) }
            passkeyShown = passkey.text
            console?.say("passkey: \(passkey.text)")
        case .requestPasskey:
            // We never claim a keyboard; a phone that asks anyway is refused.
            sm.enterPasskey(nil, now: Clock.now())
        case .confirmNumericComparison(let value):
            events.emit("numeric_comparison") { $0.field("value", value.text) }
            console?.say("confirm \(value.text) on both screens (the confirm key)")
            comparisonPending = handle
            passkeyShown = value.text
        case let .startEncryption(ltk, ediv, rand):
            host.send(.leEnableEncryption(handle, random: rand, ediv: ediv, ltk: ltk.bytes)) { [unowned(unsafe) self] result in
                if case .pending(let status) = result, !status.isSuccess {
                    self.security[handle]?.encryptionFailed(status: status.code, now: Clock.now())
                    self.pump()
                }
            }
        case .paired(let outcome):
            Log.info("smp", "paired with \(server ?? "the phone") by \(outcome.method.eventName), key size \(outcome.keySize)")
            events.emit("paired") { j in
                j.field("server", server)
                j.field("method", outcome.method.eventName)
                j.field("secure_connections", outcome.secureConnections)
                j.field("mitm", outcome.mitm)
            }
            if let bond = outcome.bond, let server {
                bonds.save(bond, for: server)
                bondsChanged()
            }
            passkeyShown = nil
        case .encrypted(let linkSecurity):
            Log.info("smp", "link to \(server ?? "the phone") encrypted (\(linkSecurity.bonded ? "bonded" : "not bonded"))")
            events.emit("encrypted") { j in
                j.field("server", server)
                j.field("bonded", linkSecurity.bonded)
            }
            passkeyShown = nil
            startAppleServices(handle)
        case .failed(let failure):
            Log.warning("smp", "security with \(server ?? "the phone"): \(failure)")
            passkeyShown = nil
            events.error("pairing", failure.description)
            switch failure {
            case .timeout, .keySizeTooSmall:
                // No more SMP on this link (timeout), or a link too weak to
                // use: drop it; the pairing routine reconnects.
                host.disconnect(handle, reason: .authenticationFailure)
            case .tooManyAttempts:
                hint = "Remove the pairing on the iPhone and on the head unit, then pair again"
                events.error("pairing", hint ?? "")
            case .local, .remote, .encryption:
                // Try again; the attempt limiter spaces the retries out and
                // gives up after repeated failures.
                sm.secure(now: Clock.now())
            }
        case .staleBond:
            Log.warning("smp", "\(server ?? "the phone") no longer has our keys; deleting the bond and pairing again")
            if let server { bonds.delete(for: server) }
            bondsChanged()
            hint = "Phone forgot this head unit: pair again"
            events.error("bond", hint ?? "")
        }
    }

    private func startScan(_ duty: ScanDuty) {
        switch duty {
        case .fast: host.startScanning(active: true, interval: 0x0060, window: 0x0030)
        case .slow: host.startScanning(active: true, interval: 0x0800, window: 0x0030)
        }
    }
}
