import ANCS
import BluetoothCore
import Config
import Console
import Foundation
import Graphics
import HCI
import HeadUnitCore
import NavigationNotifier
import Platform
import ScreenValues
import ScriptedPeers
@testable import App
import Drivers
@testable import ScriptedPairing
@testable import SMP
import Testing

/// Virtual time: a wait returns at once when a device holds input, else
/// moves the clock to the deadline (never past `limit`, where the test
/// takes over again). Nothing sleeps.
final class VirtualClock: Waiting {
    private(set) var time: Instant
    /// 2026-11-27 08:00:00 UTC, when the drive starts.
    let wallStart: Int64 = 1_795_766_400_000_000
    var limit: Instant
    private(set) var waits = 0

    init(_ start: Instant) {
        time = start
        limit = start
    }

    func now() -> Instant { time }
    func unixMicroseconds() -> Int64 { wallStart + time.milliseconds * 1000 }

    func wait(_ set: inout PollSet, until deadline: Instant?) -> Wake {
        waits += 1
        if set.hasReadyAlready { return .ready }
        let next = min(deadline ?? limit, limit)
        if next > time { time = next }
        return .ready
    }
}

/// The controller and the phone behind it, as the head unit's HCI
/// transport: every packet the head unit writes is answered at once
/// (ScriptedController's replies, the ScriptedPhone's ATT answers, the
/// TestPhone's SMP), and the answers wait as input for the next wake-up.
final class ScriptedRadio: HCIPort {
    let name = "scripted"
    var controller = ScriptedController()
    let phone = ScriptedPhone()
    let smp: TestPhone
    static let phoneAddress = BluetoothAddress(value: 0x7C04_D012_3456, kind: .public)
    static let controllerAddress = BluetoothAddress(value: 0x0011_2233_4455, kind: .public)
    let handle: UInt16 = 0x0040
    /// What the head unit's screen asks the user to type on the phone.
    var passkeyOnScreen: () -> String? = { nil }
    private(set) var isLinkUp = false
    private(set) var commands: [HCIOpcode] = []
    private var inbox: [[UInt8]] = []
    private var events = FIFO<HCITransportEvent>()
    private var advertiseAt: Instant?
    private var frames = L2CAPFrames()
    private let clock: VirtualClock

    init(clock: VirtualClock) throws {
        self.clock = clock
        smp = try TestPhone(central: ScriptedRadio.controllerAddress, phone: ScriptedRadio.phoneAddress)
        smp.identityAddress = ScriptedRadio.phoneAddress
    }

    /// ATT PDUs the phone sends on its own (ANCS published, a notification).
    func phoneSends(_ pdus: [[UInt8]?]) {
        for pdu in pdus.compactMap({ $0 }) { inbox += controller.acl(handle: handle, channel: 0x0004, pdu) }
    }

    func start(now: Instant) { events.append(.opened) }
    func pollEvent() -> HCITransportEvent? { events.popFirst() }
    func flush(now: Instant) {}
    func shutdown() {}

    /// The controller is unplugged: the link and everything the controller knew are gone.
    func unplug() {
        events.append(.closed)
        isLinkUp = false
        inbox.removeAll()
        advertiseAt = nil
        controller = ScriptedController()
    }

    func plugIn() { events.append(.opened) }

    func addDescriptors(to set: inout PollSet) {
        if !inbox.isEmpty || !events.isEmpty { set.addReady() }
    }

    func handle(_ readiness: Readiness, on fd: Int32, now: Instant) {
        for bytes in inbox { events.append(.received(bytes)) }
        inbox.removeAll()
    }

    /// The phone's advertisement is heard a while after a scan starts.
    var nextDeadline: Instant? { advertiseAt }

    func handleTimeout(now: Instant) {
        guard let at = advertiseAt, at <= now else { return }
        advertiseAt = nil
        guard !isLinkUp else { return }
        var data: [UInt8] = [2, 0x01, 0x06]
        data += [17, 0x07] + NavigationNotifierUUIDs.service.compactLittleEndian
        inbox.append(ScriptedController.advertisingReport(ScriptedRadio.phoneAddress, data: data))
    }

    func send(_ packet: HCIPacket) {
        switch packet.type {
        case .command:
            guard let command = HCICommand(body: packet.body) else { return }
            commands.append(command.opcode)
            inbox += controller.answer(command)
            let p = command.parameters
            switch command.opcode {
            case .leSetScanEnable:
                advertiseAt = p.first == 1 ? clock.now().adding(milliseconds: 100) : nil
            case .leCreateConnection where !isLinkUp:
                isLinkUp = true
                frames = L2CAPFrames()
                inbox.append(ScriptedController.connectionComplete(handle: handle, peer: ScriptedRadio.phoneAddress))
            case .disconnect:
                isLinkUp = false
            case .leEnableEncryption where p.count >= 28:
                let ok = (try? smp.expectedEncryptionKey()) == Array(p[12..<28])
                inbox.append(ScriptedController.encryptionChange(handle: handle, status: ok ? 0 : 0x06))
                guard ok else { return }
                for pdu in smp.distributeKeys() { inbox += controller.acl(handle: handle, channel: 0x0006, pdu) }
                phone.bondingCompleted()
            default:
                break
            }
        case .aclData:
            inbox.append(ScriptedController.completed(handle: handle))
            guard isLinkUp, let frame = frames.take(packet.body) else { return }
            switch frame.channel {
            case 0x0004:
                phoneSends(phone.receive(frame.payload))
            case 0x0006:
                smp.typedPasskey = passkeyOnScreen().flatMap { UInt32($0) }.flatMap { Passkey($0) }
                for pdu in (try? smp.handle(frame.payload)) ?? [] { inbox += controller.acl(handle: handle, channel: 0x0006, pdu) }
            default:
                break
            }
        default:
            break
        }
    }
}

/// The screen: the models the head unit shows, kept.
final class ModelDisplay: HeadUnitDisplay {
    private(set) var shown: [ScreenModel] = []
    var isDrawing: Bool { true }
    var size: Size? { Size(width: 800, height: 480) }
    var glyphCache: GlyphCache? { nil }
    var model: ScreenModel? { shown.last }

    func show(_ model: ScreenModel, now: Instant) {
        if shown.last != model { shown.append(model) }
    }

    func action(at physical: Point) -> ScreenAction? { nil }
    func screenshot(_ path: String) -> String? { "no glass" }
    func close() {}
    func addDescriptors(to set: inout PollSet) {}
    func handle(_ readiness: Readiness, on fd: Int32, now: Instant) {}
    var nextDeadline: Instant? { nil }
    func handleTimeout(now: Instant) {}
}

/// A console someone types on.
final class TypedConsole: ConsolePort {
    var typed = FIFO<ConsoleCommand>()
    private(set) var lines: [String] = []

    func type(_ line: String) { typed.append(ConsoleCommand(line: line)) }
    func say(_ text: String) { lines += text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }
    func pollCommand() -> ConsoleCommand? { typed.popFirst() }
    func addDescriptors(to set: inout PollSet) {
        if !typed.isEmpty { set.addReady() }
    }
    func handle(_ readiness: Readiness, on fd: Int32, now: Instant) {}
    var nextDeadline: Instant? { nil }
    func handleTimeout(now: Instant) {}
}

/// State files in memory.
final class MemoryFiles: StateStorage {
    var files: [String: [UInt8]] = [:]
    let failures = StateWriteFailures()
    let directory = "memory"
    func path(_ name: String) -> String { directory + "/" + name }
    func prepare() throws(SystemError) {}
    func read(_ name: String, limit: Int) -> [UInt8]? { files[name] }
    func read(_ name: String) -> [UInt8]? { files[name] }
    func write(_ name: String, _ bytes: [UInt8]) throws(SystemError) { files[name] = bytes }
    func remove(_ name: String) throws(SystemError) { files[name] = nil }
    func list() -> [String] { files.keys.sorted() }
}

/// The head unit on fake devices and a virtual clock.
struct World {
    let clock = VirtualClock(Instant(milliseconds: 5_000))
    let radio: ScriptedRadio
    let display = ModelDisplay()
    let console = TypedConsole()
    let files = MemoryFiles()
    let eventsPath = NSTemporaryDirectory() + "whole-program-\(UUID().uuidString).jsonl"
    let unit: HeadUnit

    init() throws {
        radio = try ScriptedRadio(clock: clock)
        var configuration = HeadUnitConfiguration()
        configuration.phones = .navigationNotifier
        unit = try HeadUnit(devices: HeadUnitDevices(waiting: clock, transport: radio, console: console, input: nil,
                                                     display: display, files: files),
                            configuration: configuration, events: EventLog(path: eventsPath, clock: clock))
        radio.passkeyOnScreen = { [unowned unit] in unit.core.passkeyShown }
    }

    /// Runs the loop until `milliseconds` of virtual time have passed.
    func run(_ milliseconds: Int64) {
        clock.limit = clock.now().adding(milliseconds: milliseconds)
        while unit.isRunning && clock.now() < clock.limit { unit.turn() }
    }

    /// The event log's lines.
    func events() throws -> [[String: Any]] {
        let lines = try String(contentsOfFile: eventsPath, encoding: .utf8).split(separator: "\n")
        return try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    func removeEventLog() { try? FileManager.default.removeItem(atPath: eventsPath) }
}

/// The whole program in virtual time: the real `HeadUnit` shell and the
/// real `HeadUnitCore` over a scripted controller and phone, a console, a
/// screen and state files, each a fake device, on a virtual clock. The
/// phone is found, paired with the passkey the screen shows, sends a Maps
/// notification, and then an hour passes.
@Suite(.serialized) struct WholeProgramTests {
    @Test func pairReceiveMapsAndIdleForAnHour() throws {
        let started = ContinuousClock.now
        let world = try World()
        defer { world.removeEventLog() }
        let (clock, radio, display, console, files) = (world.clock, world.radio, world.display, world.console, world.files)
        world.unit.start()
        world.run(3_000)
        // Found, connected, paired with the passkey shown, bonded.
        #expect(radio.isLinkUp)
        #expect(radio.commands.contains(.leCreateConnection))
        #expect(radio.commands.contains(.leEnableEncryption))
        #expect(files.list().contains { $0.hasPrefix(BondStore.prefix) })
        #expect(files.files[PairingStore.serverFile] != nil)
        #expect(display.shown.contains { $0.passkey != nil })
        #expect(display.model?.passkey == nil)

        // The phone publishes ANCS once bonded, then Maps speaks.
        radio.phoneSends([radio.phone.publishANCS()].flatMap { $0 })
        world.run(1_000)
        radio.phoneSends([radio.phone.post(1, .init(app: "com.google.Maps", title: "In 300 m, turn left", message: "Main Street"))])
        world.run(1_000)
        #expect(display.model?.navigation?.title == "In 300 m, turn left")

        // An hour of driving with nothing new: the timers fire (the clock
        // on the screen moves every minute), nothing spins, the link stays.
        let turnsBefore = clock.waits
        let clockBefore = display.model?.clock
        world.run(3_600_000)
        let turns = clock.waits - turnsBefore
        #expect(radio.isLinkUp)
        #expect(display.model?.clock != clockBefore)
        #expect(turns >= 60)
        #expect(turns < 20_000)

        console.type("status")
        world.run(100)
        let status = console.lines.joined(separator: "\n")
        #expect(status.contains("scripted"))
        #expect(status.contains("ok in memory"))

        // The event log tells the same story, in virtual time.
        let events = try world.events()
        let names = events.compactMap { $0["event"] as? String }
        #expect(names.contains("passkey"))
        #expect(names.contains("paired"))
        #expect(events.contains { $0["event"] as? String == "notification" && $0["title"] as? String == "In 300 m, turn left" })
        #expect(events.allSatisfy { ($0["t_ms"] as? Int ?? -1) < 3_700_000 })

        let real = ContinuousClock.now - started
        print("whole program: \(turns) wake-ups over a simulated hour, \(clock.waits) in all, in \(real) of real time")
        #expect(real < .seconds(1))
    }

    /// The controller is unplugged and plugged in again: the core is told
    /// the transport closed (the link is gone), brings the controller up
    /// again when it reopens, and the bonded phone comes back without a
    /// passkey.
    @Test func aLostControllerIsBroughtUpAgainAndTheBondedPhoneReturns() throws {
        let world = try World()
        defer { world.removeEventLog() }
        world.unit.start()
        world.run(3_000)
        #expect(world.radio.isLinkUp)
        let passkeys = world.display.shown.filter { $0.passkey != nil }.count
        let resets = world.radio.commands.filter { $0 == .reset }.count

        world.radio.unplug()
        world.run(1_000)
        #expect(!world.radio.isLinkUp)
        world.radio.plugIn()
        world.run(5_000)
        #expect(world.radio.commands.filter { $0 == .reset }.count == resets + 1)
        #expect(world.radio.isLinkUp)
        #expect(world.display.shown.filter { $0.passkey != nil }.count == passkeys)
        let encrypted = try world.events().filter { $0["event"] as? String == "encrypted" }
        #expect(encrypted.count == 2)
    }
}
