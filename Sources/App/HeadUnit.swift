import BluetoothCore
import Config
import Console
import Display
import DisplaySettings
import Drivers
import Graphics
import HCI
import HeadUnitCore
import Platform
import SMP

/// The running head unit: the I/O around `HeadUnitCore`, a loop over
/// injected devices (`HeadUnitDevices`). Each turn waits until a device is
/// ready or the earliest deadline (the core's, which holds the host's, the
/// screen's, each device's own), reads the time once, hands the core what
/// the devices read (controller bytes, console commands, touches and keys,
/// the key file's acknowledgement) and its timeout when due, then carries
/// out what the core's `poll*` return: packets to the controller (one
/// flush), state changes to the files, events to the event log, lines to
/// the console, the screen model to the display.
final class HeadUnit {
    struct Options {
        var spec: TransportSpec
        var stateDirectory: String
        var tracePath: String?
        /// Keep key material in the trace (`--trace-keys`): dangerous.
        var traceKeys = false
        var eventsPath: String?
        var consoleDevice: String?
        var display: DisplaySpec = .none
        var configuration = HeadUnitConfiguration()
        /// The hardware watchdog to pet from the event loop (`--watchdog`).
        var watchdogDevice: String?
        var watchdogTimeoutSeconds = Watchdog.defaultTimeoutSeconds
    }

    let core: HeadUnitCore
    let waiting: any Waiting
    let transport: any HCIPort
    let console: (any ConsolePort)?
    let input: (any InputPort)?
    let screen: any HeadUnitDisplay
    let events: EventLog
    let store: PairingStore
    let bonds: BondStore
    let stateFiles: any StateStorage
    let configuration: HeadUnitConfiguration
    /// Every device the loop waits on, the transport first.
    private var devices: LoopDevices
    private var pollSet = PollSet()
    /// The process exit status once the loop ends (`reboot` sets it).
    var exitStatus: Int32 = 0
    /// The hardware watchdog's description, or why it is not in use, for `status`.
    var watchdogText = "none"
    /// When the screen next changes by time alone (the clock, a progress bar).
    var screenAt: Instant?
    /// When the loop ends (a shutdown waits for the links' ends to go out).
    private var stopAt: Instant?
    private var running = false
    /// How each NotifBridge key file write went: the next turn's inputs.
    private var keysStored: [Bool] = []

    /// Starts (or with nil, ends) the btsnoop trace of every packet the host
    /// sends and receives.
    func trace(to writer: BTSnoopWriter?) {
        if let writer {
            core.host.packetObserver = { packet, direction in writer.record(packet, direction: direction) }
        } else {
            core.host.packetObserver = nil
        }
    }

    /// The head unit on this machine's devices.
    convenience init(options: Options) throws(SystemError) {
        let configuration = options.configuration
        let loop = try EventLoop()
        // Packets that arrive together are read in one turn (`Scheduling.batch`).
        if !Scheduling.batch() { Log.warning("loop", "\(SystemError("sched_setscheduler(SCHED_BATCH)")); one wake-up per packet") }
        var others: [any LoopDevice] = []
        var watchdogText = "none"
        // The watchdog first: a previous run may have left it armed.
        if let device = options.watchdogDevice {
            do {
                let w = try Watchdog(device: device, timeoutSeconds: options.watchdogTimeoutSeconds)
                w.start(now: loop.now())
                others.append(w)
                watchdogText = w.description
                Log.info("watchdog", "\(w.description), petted every \(w.intervalMilliseconds) ms from the event loop")
            } catch {
                watchdogText = "not in use (\(error))"
                Log.error("watchdog", "\(error); running without the watchdog (a hung head unit will not reset the board)")
            }
        }
        // The controller's transport before the display: a UART attached
        // now is set up by the kernel while the first frame is drawn, and
        // binds at once when the loop starts (HCIDriver.start).
        let transport = HCIDriver(spec: options.spec)
        transport.start(now: loop.now())
        let events = EventLog(path: options.eventsPath, clock: loop)
        let fonts = options.display == .none ? nil
            : FontLocator.load(configured: configuration.fontsDirectory, fallbacks: configuration.fallbackFonts)
        let screen = ScreenOutput(spec: options.display, options: configuration.displayOptions, fonts: fonts, events: events,
                                  now: loop.now())
        let logical = screen.size ?? configuration.displayOptions.virtualSize
        let physical = configuration.displayOptions.rotation.physicalSize(logical: logical)
        var console: ConsoleDevice?
        if let device = options.consoleDevice {
            do { console = try ConsoleDevice(device: device) } catch {
                Log.error("console", "\(error); running without a console")
            }
        }
        let devices = HeadUnitDevices(waiting: loop, transport: transport, console: console,
                                      input: InputDevices(settings: configuration.input, panelWidth: physical.width,
                                                          panelHeight: physical.height),
                                      display: screen, files: StateFiles(directory: options.stateDirectory), others: others)
        try self.init(devices: devices, configuration: configuration, events: events)
        self.watchdogText = watchdogText
        if let path = options.tracePath {
            trace(to: try BTSnoopWriter(path: path, redaction: HeadUnit.traceRedaction(keepingKeys: options.traceKeys, core: core)))
        }
    }

    init(devices: HeadUnitDevices, configuration: HeadUnitConfiguration, events: EventLog) throws(SystemError) {
        self.configuration = configuration
        self.events = events
        waiting = devices.waiting
        transport = devices.transport
        console = devices.console
        input = devices.input
        screen = devices.display
        let files = devices.files
        try files.prepare()
        // A full disk or a read-only data partition: the error is reported
        // each time, the old files stay as they were, and the firmware keeps
        // going on what it holds in memory.
        files.failures.onFailure = { error in events.error("state", "\(error); keeping the old state, running from memory") }
        stateFiles = files
        store = PairingStore(files: files)
        bonds = BondStore(files: files)
        var stored = StoredState(clientName: store.clientName(), rememberedServer: store.rememberedServer(),
                                 bonds: bonds.byServer(), localIRK: bonds.localIRK(), appNames: AppNameStore(files: files).load(),
                                 notifBridgeKeys: files.read(HeadUnit.notifBridgeKeyFile),
                                 identityAddress: configuration.phones.advertises ? bonds.identityAddress() : nil)
        stored.clientStates = bonds.clientStates()
        (stored.ghostDropResume, stored.ghostDropWritten) = GhostDropStore(files: files).load()
        stored.stateFreeBytes = GhostDropStore(files: files).freeBytes()
        let settings = CoreSettings(pairing: configuration.pairing, ancs: configuration.ancs(), filter: configuration.filter,
                                    deviceName: configuration.deviceName, screenLocale: configuration.screenLocale,
                                    notifBridge: configuration.notifBridge,
                                    findsNavigationNotifierPhones: configuration.phones.findsNavigationNotifierPhones,
                                    advertises: configuration.phones.advertises,
                                    pairingWindowMilliseconds: configuration.pairingWindowSeconds * 1000,
                                    pairAtStart: configuration.pairAtStart)
        core = HeadUnitCore(settings: settings, stored: stored, now: waiting.now())
        var all: [any LoopDevice] = [devices.transport, devices.display]
        if let c = devices.console { all.append(c) }
        if let i = devices.input { all.append(i) }
        self.devices = LoopDevices(all + devices.others)
    }

    /// Runs until a termination signal (or `reboot`) has ended the links, or
    /// the wait fails.
    func run() -> Int32 {
        start()
        while running { turn() }
        finish()
        return exitStatus
    }

    /// Opens the devices and carries out what the core holds from start-up.
    func start() {
        let now = waiting.now()
        running = true
        transport.start(now: now)
        input?.start(now: now)
        takeInputs(now: now)
        carryOut(now: now)
    }

    /// Closes the devices.
    func finish() {
        input?.stop()
        transport.shutdown()
        screen.close()
    }

    var isRunning: Bool { running }

    /// One wait and everything it made ready or due.
    func turn() {
        // Read once per turn: it asks every layer and link. After the wait
        // only the inputs can have moved it, and they arm timers from `now`
        // on, so a timeout can be due then only if it was due here; one
        // due here is asked again, as the inputs may have put it off.
        let coreDeadline = core.nextDeadline
        let deadline = earliest(earliest(earliest(coreDeadline, screenAt), stopAt), devices.fill(&pollSet))
        // The key file's acknowledgement is waiting: no sleeping.
        if !keysStored.isEmpty {
            pollSet.owner = -1
            pollSet.addReady()
        }
        let wake = waiting.wait(&pollSet, until: deadline)
        let now = waiting.now()
        switch wake {
        case .ready: break
        case .terminationSignal: shutDownGracefully(now: now)
        case .failed: running = false
        }
        devices.dispatch(&pollSet, now: now)
        takeInputs(now: now)
        if let due = coreDeadline, due <= now, let still = core.nextDeadline, still <= now { core.handleTimeout(now: now) }
        carryOut(now: now)
        if let at = stopAt, at <= now { running = false }
    }

    /// SIGINT/SIGTERM: end links politely so the phone knows at once, then stop.
    func shutDownGracefully(now: Instant) {
        let ending = core.disconnectAll(now: now)
        let at = ending ? now.adding(milliseconds: 500) : now
        stopAt = earliest(stopAt, at)
    }

    // MARK: - Inputs

    /// What the devices read, to the core, in the order they matter: the
    /// controller's bytes first (what the phone said), then the person's.
    private func takeInputs(now: Instant) {
        if !keysStored.isEmpty {
            let acknowledged = keysStored
            keysStored.removeAll()
            for ok in acknowledged { core.keysStored(ok: ok, now: now) }
        }
        while let event = transport.pollEvent() {
            switch event {
            case .opened: core.start(now: now)
            case .received(let bytes): core.receive(bytes, now: now)
            case .closed: core.transportClosed(now: now)
            }
        }
        if let console {
            while let command = console.pollCommand() {
                consoleCommand(command, now: now)
                // Its answer after the lines the core had before it.
                while let line = core.pollConsoleLine() { console.say(line) }
            }
        }
        if let input {
            while let action = input.pollAction() { inputAction(action, now: now) }
        }
    }

    // MARK: - Carrying out what the core asks for

    /// Once per wake-up: the core's packets to the controller, its state
    /// changes to the files (before the events that tell of them, so a
    /// reader of the event log finds the files written), its events to the
    /// log, its console lines to the console; then the screen.
    func carryOut(now: Instant) {
        while let packet = core.pollTransmit(now: now) { transport.send(packet) }
        transport.flush(now: now)
        transport.endOnCrash(core.links.keys)
        while core.hasStateWrites { write(core.takeStateWrite(), now: now) }
        if core.hasEvents { events.batch { while core.hasEvents { events.write(core.takeEvent()) } } }
        while let line = core.pollConsoleLine() { console?.say(line) }
        updateScreen(now: now)
    }

    /// The NotifBridge key ring (docs/NOTIFBRIDGE.md, "Persistence format and order").
    static let notifBridgeKeyFile = "notifbridge-keys"

    private func write(_ change: StateWrite, now: Instant) {
        switch change {
        case .rememberServer(let server): store.remember(server)
        case .forgetServer: store.forgetServer()
        case let .saveBond(bond, server): bonds.save(bond, for: server)
        case .deleteBond(let server): bonds.delete(for: server)
        case let .clientState(bytes, server): bonds.saveClientState(bytes, for: server)
        case .appNames(let names): AppNameStore(files: stateFiles).save(names)
        case .notifBridgeKeys(let bytes):
            // A failure is reported by `stateFiles.failures`; the core
            // withholds the receipts until it hears how the write went.
            let stored = (try? stateFiles.write(HeadUnit.notifBridgeKeyFile, bytes)) != nil
            keysStored.append(stored)
        case .ghostDrop(let op):
            let store = GhostDropStore(files: stateFiles)
            if let handed = store.apply(op) {
                console?.say(handed.line)
                core.transferHandedOn(handed.outcome, now: now)
            }
            // What GhostDrop's next offer is measured against.
            if case .append = op {} else { core.stateFreeBytes(store.freeBytes()) }
        }
    }

    // MARK: - Status

    func statusText(now: Instant) -> String {
        let glyphs = screen.glyphCache.map { "glyphs \($0.count) \($0.bytes)/\($0.budget) bytes" }
        let shell = HeadUnitCore.ShellStatus(transport: transport.name, stateFiles: stateFilesText(), glyphs: glyphs,
                                             watchdog: watchdogText,
                                             systemClock: HeadUnit.clockText(unixMicroseconds: waiting.unixMicroseconds()))
        return core.statusText(now: now, shell: shell)
    }

    private func stateFilesText() -> String {
        let failures = stateFiles.failures
        guard let last = failures.last else { return "ok in \(stateFiles.directory)" }
        if failures.failing {
            return "WRITE FAILED (\(last)); old state kept, running from memory (\(failures.count) failed writes)"
        }
        return "ok in \(stateFiles.directory) (\(failures.count) failed writes earlier, last: \(last))"
    }
}
