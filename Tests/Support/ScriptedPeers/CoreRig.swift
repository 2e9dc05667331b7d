import BluetoothCore
import HCI
import HeadUnitCore
import Console
import NavigationNotifier

/// One input given to the core, with its time.
public enum CoreInput {
    case start(Instant)
    case bytes([UInt8], Instant)
    case timeout(Instant)

    public var now: Instant {
        switch self {
        case .start(let now), .bytes(_, let now), .timeout(let now): return now
        }
    }

    /// Gives the input to `core`.
    public func apply(to core: HeadUnitCore) {
        switch self {
        case .start(let now): core.start(now: now)
        case let .bytes(bytes, now): core.receive(bytes, now: now)
        case .timeout(let now): core.handleTimeout(now: now)
        }
    }
}

/// The head-unit core against a scripted controller and phones, in virtual
/// time: every packet the core transmits is answered (the controller's
/// replies, each phone's ATT answers, its SMP through `smp`), every answer
/// is fed back as H4 bytes, and time moves only when told. No sockets, no
/// sleeps, no threads.
///
/// Each phone has its own link (`RigPhone`, one connection handle each).
/// The rig is made with one; `addPhone` adds any number more. Everything
/// about one phone is on its `RigPhone`, and every method that drives a
/// link takes the `RigPhone` it is about; left out, it is the first (so
/// `phone`, `smp`, `phoneConnectsToUs()`... speak of the first phone).
public final class CoreRig {
    public let core: HeadUnitCore
    public var controller = ScriptedController()
    /// Every phone, the first one first.
    public private(set) var phones: [RigPhone]
    /// The first phone.
    public var first: RigPhone { phones[0] }
    public var phone: ScriptedPhone {
        get { first.phone }
        set { first.phone = newValue }
    }
    public var phoneAddress: BluetoothAddress { first.address }
    public var link: UInt16 { first.handle }
    public private(set) var now: Instant
    /// The first phone advertises the NavigationNotifier service while not
    /// connected, heard `advertisingDelayMilliseconds` after a scan starts.
    public var phoneAdvertises: Bool {
        get { first.advertises }
        set { first.advertises = newValue }
    }
    public var advertisesService: Bool {
        get { first.advertisesService }
        set { first.advertisesService = newValue }
    }
    public var advertisingDelayMilliseconds: Int64 = 100
    private var advertisingAt: Instant?
    public var acceptsConnections: Bool {
        get { first.acceptsConnections }
        set { first.acceptsConnections = newValue }
    }
    public var isLinkUp: Bool { first.isLinkUp }
    /// The key size the controller reports for an encrypted link.
    public var encryptionKeySize: UInt8 = 16
    public var smp: (([UInt8]) -> [[UInt8]])? {
        get { first.smp }
        set { first.smp = newValue }
    }
    public var encryption: ([UInt8]) -> (status: UInt8, then: [[UInt8]]) {
        get { first.encryption }
        set { first.encryption = newValue }
    }
    /// A phone takes its link as bonded as soon as it is encrypted with a bond.
    public var phoneBondsOnEncryption = true
    public var phoneAnswersATT: Bool {
        get { first.answersATT }
        set { first.answersATT = newValue }
    }
    /// Told of each passkey the head unit shows (the user types it on the phone).
    public var onPasskey: (String) -> Void = { _ in }

    /// Sees every input the core is given, in order (the pipeline benchmark
    /// records them to replay them into a fresh core).
    public var onInput: (CoreInput) -> Void = { _ in }
    /// Sees every packet the core transmits, in order.
    public var onTransmit: (HCIPacket) -> Void = { _ in }
    /// Packets the core transmitted.
    public private(set) var transmitted = 0

    public private(set) var events: [CoreEvent] = []
    public private(set) var writes: [StateWrite] = []
    public private(set) var consoleLines: [String] = []
    /// Every command the host sent, in order.
    public private(set) var commands: [HCIOpcode] = []
    /// Every SMP PDU the head unit sent, to any phone (its first byte is the code).
    public private(set) var smpSent: [[UInt8]] = []
    /// H4 packets on their way to the host.
    private var inbox: [[UInt8]] = []

    /// The controller's own address (its Read BD_ADDR answer).
    public static let controllerAddress = BluetoothAddress(value: 0x0011_2233_4455, kind: .public)
    public static let defaultPhoneAddress = BluetoothAddress(value: 0x7C04_D012_3456, kind: .public)
    /// The first phone's connection handle; the next phones get the next ones.
    public static let firstHandle: UInt16 = 0x0040

    /// `random`: the core's random source (nil: the system's); a seeded
    /// one repeats a run byte for byte.
    public init(settings: CoreSettings = CoreSettings(), stored: StoredState, phone: ScriptedPhone = ScriptedPhone(),
                phoneAddress: BluetoothAddress = CoreRig.defaultPhoneAddress,
                now: Instant = Instant(milliseconds: 1_000), random: RandomSource? = nil) {
        self.now = now
        phones = [RigPhone(phone: phone, address: phoneAddress, handle: CoreRig.firstHandle)]
        if let random {
            core = HeadUnitCore(settings: settings, stored: stored, now: now, random: random)
        } else {
            core = HeadUnitCore(settings: settings, stored: stored, now: now)
        }
    }

    /// Another phone, on the next connection handle; by default at the
    /// next public address after the first phone's. It advertises like
    /// the first unless told otherwise.
    @discardableResult
    public func addPhone(_ phone: ScriptedPhone = ScriptedPhone(), address: BluetoothAddress? = nil) -> RigPhone {
        let next = BluetoothAddress(value: CoreRig.defaultPhoneAddress.value + UInt64(phones.count), kind: .public)
        let added = RigPhone(phone: phone, address: address ?? next, handle: CoreRig.firstHandle + UInt16(phones.count))
        phones.append(added)
        return added
    }

    /// The phone on a connection handle (the flags bits ignored).
    public func phone(on handle: UInt16) -> RigPhone? { phones.first { $0.handle == handle & 0x0FFF } }

    // MARK: - Driving

    /// Opens the transport: the controller comes up, the pairing routine
    /// starts, and 200 ms pass (the phone's advertising is heard).
    public func start() {
        onInput(.start(now))
        core.start(now: now)
        settle()
        advance(milliseconds: 200)
    }

    /// Moves packets both ways until nothing moves.
    public func settle() {
        for _ in 0..<100_000 {
            collectOutputs()
            if let packet = core.pollTransmit(now: now) {
                transmitted += 1
                onTransmit(packet)
                answer(packet)
            } else if !inbox.isEmpty {
                let bytes = inbox.removeFirst()
                onInput(.bytes(bytes, now))
                core.receive(bytes, now: now)
            } else {
                break
            }
        }
        collectOutputs()
    }

    /// Lets `milliseconds` of virtual time pass, firing every deadline on the way.
    public func advance(milliseconds: Int64) {
        let end = now.adding(milliseconds: milliseconds)
        var fired = 0
        while let deadline = earliest(core.nextDeadline, advertisingAt), deadline <= end, fired < 10_000 {
            fired += 1
            if deadline > now { now = deadline }
            if let at = advertisingAt, at <= now {
                advertisingAt = nil
                for p in phones where p.advertises && !p.isLinkUp { inbox.append(p.advertisement()) }
            }
            if let due = core.nextDeadline, due <= now {
                onInput(.timeout(now))
                core.handleTimeout(now: now)
            }
            settle()
        }
        now = end
        settle()
    }

    /// Bytes from the controller, delivered at once.
    public func deliver(_ packets: [[UInt8]]) {
        inbox += packets
        settle()
    }

    /// ATT PDUs a phone (the first unless named) sends on its own (notifications, indications).
    public func phoneSends(_ pdus: [[UInt8]], from sender: RigPhone? = nil) {
        let p = sender ?? first
        for pdu in pdus { inbox += controller.acl(handle: p.handle, channel: 0x0004, pdu) }
        settle()
    }

    public func phoneSends(_ pdu: [UInt8]?, from sender: RigPhone? = nil) {
        if let pdu { phoneSends([pdu], from: sender) }
    }

    /// An SMP PDU a phone sends on its own (a Pairing or Security Request).
    public func phoneSendsSMP(_ pdu: [UInt8], from sender: RigPhone? = nil) {
        inbox += controller.acl(handle: (sender ?? first).handle, channel: 0x0006, pdu)
        settle()
    }

    /// A frame a phone sends on any channel (LE signaling, a credit based channel's CID).
    public func phoneSendsL2CAP(channel: UInt16, _ payload: [UInt8], from sender: RigPhone? = nil) {
        inbox += controller.acl(handle: (sender ?? first).handle, channel: channel, payload)
        settle()
    }

    /// Links a phone made to us: its controller starts encryption and
    /// ours asks the head unit for the key (LE Long Term Key Request).
    public func phoneStartsEncryption(ediv: UInt16 = 0, rand: UInt64 = 0, from sender: RigPhone? = nil) {
        let handle = (sender ?? first).handle
        var p: [UInt8] = [0x05, UInt8(handle & 0xFF), UInt8(handle >> 8)]
        for i in 0..<8 { p.append(UInt8(truncatingIfNeeded: rand >> (8 * UInt64(i)))) }
        p += [UInt8(ediv & 0xFF), UInt8(ediv >> 8)]
        inbox.append(ScriptedController.event(0x3E, p))
        settle()
    }

    /// What the first phone makes of the key the head unit answered with
    /// (its Encryption Change status, then the SMP PDUs it sends); nil: the
    /// head unit refused the request (the phone learns the key is missing).
    public var peripheralEncryption: ([UInt8]?) -> (status: UInt8, then: [[UInt8]]) {
        get { first.peripheralEncryption }
        set { first.peripheralEncryption = newValue }
    }
    /// The keys the head unit answered the first phone's LTK requests with, nil for a refusal.
    public var longTermKeyAnswers: [[UInt8]?] { first.longTermKeyAnswers }

    /// A phone answers what it held back, and everything from now on.
    public func releaseHeldATT(_ holder: RigPhone? = nil) {
        let p = holder ?? first
        p.answersATT = true
        let held = p.heldATT
        p.heldATT = []
        for request in held {
            for pdu in p.phone.receive(request) { inbox += controller.acl(handle: p.handle, channel: 0x0004, pdu) }
        }
        settle()
    }

    /// A phone connects to the head unit (it is the central, we the
    /// peripheral), as it does to a NotifBridge receiver.
    public func phoneConnectsToUs(_ caller: RigPhone? = nil) {
        let p = caller ?? first
        guard !p.isLinkUp else { return }
        linkUp(p)
        inbox.append(ScriptedController.connectionComplete(handle: p.handle, peer: p.address, asPeripheral: true))
        settle()
    }

    /// A phone's radio link is lost (supervision timeout) or the phone ends it.
    public func dropLink(reason: UInt8 = 0x08, of leaving: RigPhone? = nil) {
        let p = leaving ?? first
        guard p.isLinkUp else { return }
        p.isLinkUp = false
        p.heldATT = []
        inbox.append(ScriptedController.disconnectionComplete(handle: p.handle, reason: reason))
        settle()
    }

    public func console(_ command: String) {
        core.command(ConsoleCommand(line: command), now: now)
        settle()
    }

    /// Takes what the rig collected so far.
    public func takeEvents() -> [CoreEvent] {
        defer { events = [] }
        return events
    }

    public func takeConsoleLines() -> [String] {
        defer { consoleLines = [] }
        return consoleLines
    }

    // MARK: - The controller and the phones

    private func linkUp(_ p: RigPhone) {
        p.isLinkUp = true
        p.encrypted = false
        p.disconnectReason = nil
        p.frames = L2CAPFrames()
    }

    private func collectOutputs() {
        while let change = core.pollStateWrite() { writes.append(change) }
        while let line = core.pollConsoleLine() { consoleLines.append(line) }
        while let event = core.pollEvent() {
            events.append(event)
            switch event {
            case .passkey(let passkey):
                onPasskey(passkey)
            case .encrypted(_, true) where phoneBondsOnEncryption:
                for p in phones where p.isLinkUp && p.encrypted { p.phone.bondingCompleted() }
            default:
                break
            }
        }
    }

    /// The connection handle a command's parameters start with.
    private func handle(_ p: [UInt8]) -> UInt16? {
        p.count >= 2 ? (UInt16(p[0]) | UInt16(p[1]) << 8) & 0x0FFF : nil
    }

    /// The phone LE Create Connection asks for: the one at the peer address
    /// in its parameters, else (the accept list) the first that advertises.
    private func called(_ p: [UInt8]) -> RigPhone? {
        if p.count >= 12, let kind = BluetoothAddress.Kind(rawValue: p[5]) {
            var value: UInt64 = 0
            for i in 0..<6 { value |= UInt64(p[6 + i]) << (8 * UInt64(i)) }
            let address = BluetoothAddress(value: value, kind: kind)
            if let match = phones.first(where: { $0.address == address }) { return match }
        }
        return first
    }

    private func answer(_ packet: HCIPacket) {
        switch packet.type {
        case .command:
            guard let command = HCICommand(body: packet.body) else { return }
            commands.append(command.opcode)
            inbox += controller.answer(command, encryptionKeySize: encryptionKeySize)
            let p = command.parameters
            switch command.opcode {
            case .leSetScanEnable:
                advertisingAt = p.first == 1 ? now.adding(milliseconds: advertisingDelayMilliseconds) : nil
            case .leCreateConnection:
                guard let callee = called(p), !callee.isLinkUp, callee.acceptsConnections else { break }
                linkUp(callee)
                inbox.append(ScriptedController.connectionComplete(handle: callee.handle, peer: callee.address))
            case .disconnect:
                guard let gone = handle(p).flatMap(phone(on:)) else { break }
                gone.isLinkUp = false
                gone.disconnectReason = p.count >= 3 ? p[2] : nil
            case .leLongTermKeyRequestReply where p.count >= 18, .leLongTermKeyRequestNegativeReply:
                guard let asking = handle(p).flatMap(phone(on:)) else { break }
                let ltk = command.opcode == .leLongTermKeyRequestReply ? Array(p[2..<18]) : nil
                asking.longTermKeyAnswers.append(ltk)
                encrypt(asking, asking.peripheralEncryption(ltk))
            case .leEnableEncryption where p.count >= 28:
                guard let called = handle(p).flatMap(phone(on:)) else { break }
                encrypt(called, called.encryption(Array(p[12..<28])))
            default:
                break
            }
        case .aclData:
            let body = packet.body
            guard body.count >= 4, let to = handle(body).flatMap(phone(on:)) else { return }
            inbox.append(ScriptedController.completed(handle: to.handle))
            guard to.isLinkUp, let frame = to.frames.take(body) else { return }
            switch frame.channel {
            case 0x0004 where !to.answersATT:
                to.heldATT.append(frame.payload)
            case 0x0004:
                for pdu in to.phone.receive(frame.payload) { inbox += controller.acl(handle: to.handle, channel: 0x0004, pdu) }
            case 0x0006:
                smpSent.append(frame.payload)
                to.smpSent.append(frame.payload)
                for pdu in to.smp?(frame.payload) ?? [] { inbox += controller.acl(handle: to.handle, channel: 0x0006, pdu) }
            default:
                to.otherFrames.append((frame.channel, frame.payload))
            }
        default:
            break
        }
    }

    /// The controller reports how encryption went on a phone's link, then
    /// the phone's SMP PDUs (its keys) follow.
    private func encrypt(_ p: RigPhone, _ outcome: (status: UInt8, then: [[UInt8]])) {
        if outcome.status == 0 { p.encrypted = true }
        inbox.append(ScriptedController.encryptionChange(handle: p.handle, status: outcome.status))
        for pdu in outcome.then { inbox += controller.acl(handle: p.handle, channel: 0x0006, pdu) }
    }
}
