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

/// The running head unit: the I/O around `HeadUnitCore`. One event loop
/// carries the controller's bytes to the core and the core's packets back
/// through the HCI driver, runs the core's timer, writes its state changes
/// to the state files and its events to the event log, draws its screen
/// model, and feeds it the console's commands and the touch and key input.
/// Every input ends in `carryOut()`.
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

    let loop: EventLoop
    let core: HeadUnitCore
    let driver: HCIDriver
    let events: EventLog
    let store: PairingStore
    let bonds: BondStore
    let stateFiles: StateFiles
    let configuration: HeadUnitConfiguration
    var console: ConsoleDevice?
    let screen: ScreenOutput
    var screenTimer: EventLoop.TimerID?
    private var coreTimer: EventLoop.TimerID?
    /// The process exit status once the loop ends (`reboot` sets it).
    var exitStatus: Int32 = 0
    var input: InputDevices?
    /// The hardware watchdog, petted by a timer of `loop`.
    private(set) var watchdog: Watchdog?
    /// Why the watchdog asked for is not in use, for `status`.
    private var watchdogProblem: String?

    init(options: Options) throws(SystemError) {
        configuration = options.configuration
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
        var stored = StoredState(clientName: store.clientName(), rememberedServer: store.rememberedServer(),
                                 bonds: bonds.byServer(), localIRK: bonds.localIRK(), appNames: AppNameStore(files: files).load(),
                                 notifBridgeKeys: files.read(HeadUnit.notifBridgeKeyFile),
                                 identityAddress: configuration.phones.advertises ? bonds.identityAddress() : nil)
        stored.clientStates = bonds.clientStates()
        let settings = CoreSettings(pairing: configuration.pairing, ancs: configuration.ancs(), filter: configuration.filter,
                                    deviceName: configuration.deviceName, screenLocale: configuration.screenLocale,
                                    notifBridge: configuration.notifBridge,
                                    findsNavigationNotifierPhones: configuration.phones.findsNavigationNotifierPhones,
                                    advertises: configuration.phones.advertises,
                                    pairingWindowMilliseconds: configuration.pairingWindowSeconds * 1000,
                                    pairAtStart: configuration.pairAtStart)
        core = HeadUnitCore(settings: settings, stored: stored, now: Clock.now())
        driver = HCIDriver(spec: options.spec, loop: loop, host: core.host)
        if let path = options.tracePath { driver.trace = try BTSnoopWriter(path: path, redaction: HeadUnit.traceRedaction(keepingKeys: options.traceKeys, core: core)) }
        let fonts = options.display == .none ? nil
            : FontLocator.load(configured: configuration.fontsDirectory, fallbacks: configuration.fallbackFonts)
        screen = ScreenOutput(spec: options.display, options: configuration.displayOptions, fonts: fonts, loop: loop, events: events)
        // What the controller sent in one wake-up is carried out once: on
        // the user channel that is one read per packet, and carrying out
        // after each would write the event log and the controller once per
        // packet instead of once per wake-up.
        driver.onReceive = { [unowned(unsafe) self] bytes, now in self.core.receive(bytes, now: now) }
        driver.onReceiveDone = { [unowned(unsafe) self] in self.carryOut() }
        driver.onEvent = { [unowned(unsafe) self] event in
            self.core.hostEvent(event, now: Clock.now())
            self.carryOut()
        }
        loop.onTerminationSignal = { [unowned(unsafe) self] in self.shutDownGracefully() }
        if let device = options.consoleDevice {
            do {
                let c = try ConsoleDevice(device: device, loop: loop)
                c.onCommand = { [unowned(unsafe) self] command in self.consoleCommand(command) }
                console = c
            } catch {
                Log.error("console", "\(error); running without a console")
            }
        }
    }

    /// SIGINT/SIGTERM: end links politely so the phone knows at once, then stop.
    private func shutDownGracefully() {
        guard core.disconnectAll(now: Clock.now()) else {
            loop.stop()
            return
        }
        driver.flush()
        loop.schedule(at: Clock.now().adding(milliseconds: 500)) { [unowned(unsafe) self] in self.loop.stop() }
    }

    func run() -> Int32 {
        carryOut()
        driver.start()
        startInput()
        updateScreen()
        loop.run()
        input?.stop()
        driver.shutdown()
        screen.close()
        return exitStatus
    }

    // MARK: - Carrying out what the core asks for

    /// After every input: the core's packets to the controller, its state
    /// changes to the files (before the events that tell of them, so a
    /// reader of the event log finds the files written), its events to the
    /// log, its console lines to the console; then its timer and the screen.
    func carryOut() {
        driver.flush()
        var keysWritten = false
        while let change = core.pollStateWrite() { keysWritten = write(change) || keysWritten }
        // The receipts a stored key file released.
        if keysWritten { driver.flush() }
        events.batch { while let event = core.pollEvent() { events.write(event) } }
        while let line = core.pollConsoleLine() { console?.say(line) }
        loop.reschedule(&coreTimer, at: core.nextDeadline, handler: coreTimeout)
        updateScreen()
    }

    /// Made once, not at every carry-out (a closure is an allocation).
    private lazy var coreTimeout: () -> Void = { [unowned(unsafe) self] in
        self.coreTimer = nil
        self.core.handleTimeout(now: Clock.now())
        self.carryOut()
    }

    /// The NotifBridge key ring (docs/NOTIFBRIDGE.md, "Persistence format and order").
    static let notifBridgeKeyFile = "notifbridge-keys"

    /// True when it was the key file: the core has been told how it went.
    private func write(_ change: StateWrite) -> Bool {
        switch change {
        case .rememberServer(let server): store.remember(server)
        case .forgetServer: store.forgetServer()
        case let .saveBond(bond, server): bonds.save(bond, for: server)
        case .deleteBond(let server): bonds.delete(for: server)
        case let .clientState(bytes, server): bonds.saveClientState(bytes, for: server)
        case .appNames(let names): AppNameStore(files: stateFiles).save(names)
        case .notifBridgeKeys(let bytes):
            // A failure is reported by `stateFiles.failures`; the core withholds the receipts.
            let stored = (try? stateFiles.write(HeadUnit.notifBridgeKeyFile, bytes)) != nil
            core.keysStored(ok: stored, now: Clock.now())
            return true
        }
        return false
    }

    // MARK: - Status

    func statusText() -> String {
        let glyphs = screen.glyphCache.map { "glyphs \($0.count) \($0.bytes)/\($0.budget) bytes" }
        let shell = HeadUnitCore.ShellStatus(transport: "\(driver.spec)", stateFiles: stateFilesText(), glyphs: glyphs,
                                             watchdog: watchdog?.description ?? watchdogProblem.map { "not in use (\($0))" } ?? "none",
                                             systemClock: HeadUnit.clockText())
        return core.statusText(now: Clock.now(), shell: shell)
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
