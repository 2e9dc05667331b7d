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

/// The head-unit core against a scripted controller and phone, in virtual
/// time: every packet the core transmits is answered (the controller's
/// replies, the phone's ATT answers, its SMP through `smp`), every answer
/// is fed back as H4 bytes, and time moves only when told. No sockets, no
/// sleeps, no threads.
public final class CoreRig {
    public let core: HeadUnitCore
    public var controller = ScriptedController()
    public var phone: ScriptedPhone
    public let phoneAddress: BluetoothAddress
    public let link: UInt16 = 0x0040
    public private(set) var now: Instant
    /// The phone advertises the NavigationNotifier service while not connected,
    /// heard `advertisingDelayMilliseconds` after a scan starts.
    public var phoneAdvertises = true
    /// Whether its advertisements carry the NavigationNotifier service UUID:
    /// with the Server app in the background (the phone in the driver's
    /// pocket) iOS advertises neither the service nor the name.
    public var advertisesService = true
    public var advertisingDelayMilliseconds: Int64 = 100
    private var advertisingAt: Instant?
    /// The phone takes connections; false: LE Create Connection never completes.
    public var acceptsConnections = true
    public private(set) var isLinkUp = false
    /// The key size the controller reports for an encrypted link.
    public var encryptionKeySize: UInt8 = 16
    /// The phone's Security Manager: answers one SMP PDU. nil: the phone stays silent.
    public var smp: (([UInt8]) -> [[UInt8]])?
    /// Encryption asked for with this LTK: the Encryption Change status (0
    /// succeeds) and the SMP PDUs the phone sends once encrypted.
    public var encryption: ([UInt8]) -> (status: UInt8, then: [[UInt8]]) = { _ in (0, []) }
    /// The phone takes the link as bonded as soon as it is encrypted with a bond.
    public var phoneBondsOnEncryption = true
    /// The phone answers ATT requests; false: it holds them (`releaseHeldATT`).
    public var phoneAnswersATT = true
    private var heldATT: [[UInt8]] = []
    /// Told of each passkey the head unit shows (the user types it on the phone).
    public var onPasskey: (String) -> Void = { _ in }

    /// Sees every input the core is given, in order (the pipeline benchmark
    /// records them to replay them into a fresh core).
    public var onInput: (CoreInput) -> Void = { _ in }
    /// Packets the core transmitted.
    public private(set) var transmitted = 0

    public private(set) var events: [CoreEvent] = []
    public private(set) var writes: [StateWrite] = []
    public private(set) var consoleLines: [String] = []
    /// Every command the host sent, in order.
    public private(set) var commands: [HCIOpcode] = []
    /// Every SMP PDU the head unit sent (its first byte is the code).
    public private(set) var smpSent: [[UInt8]] = []
    /// H4 packets on their way to the host.
    private var inbox: [[UInt8]] = []
    private var frames = L2CAPFrames()

    /// The controller's own address (its Read BD_ADDR answer).
    public static let controllerAddress = BluetoothAddress(value: 0x0011_2233_4455, kind: .public)
    public static let defaultPhoneAddress = BluetoothAddress(value: 0x7C04_D012_3456, kind: .public)

    public init(settings: CoreSettings = CoreSettings(), stored: StoredState, phone: ScriptedPhone = ScriptedPhone(),
                phoneAddress: BluetoothAddress = CoreRig.defaultPhoneAddress,
                now: Instant = Instant(milliseconds: 1_000)) {
        self.now = now
        self.phone = phone
        self.phoneAddress = phoneAddress
        core = HeadUnitCore(settings: settings, stored: stored, now: now)
    }

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
                if phoneAdvertises && !isLinkUp { inbox.append(advertisement()) }
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

    /// ATT PDUs the phone sends on its own (notifications, indications).
    public func phoneSends(_ pdus: [[UInt8]]) {
        for pdu in pdus { inbox += controller.acl(handle: link, channel: 0x0004, pdu) }
        settle()
    }

    public func phoneSends(_ pdu: [UInt8]?) {
        if let pdu { phoneSends([pdu]) }
    }

    /// An SMP PDU the phone sends on its own (a Security Request).
    public func phoneSendsSMP(_ pdu: [UInt8]) {
        inbox += controller.acl(handle: link, channel: 0x0006, pdu)
        settle()
    }

    /// Links the phone made to us: its controller starts encryption and
    /// ours asks the head unit for the key (LE Long Term Key Request).
    public func phoneStartsEncryption(ediv: UInt16 = 0, rand: UInt64 = 0) {
        var p: [UInt8] = [0x05, UInt8(link & 0xFF), UInt8(link >> 8)]
        for i in 0..<8 { p.append(UInt8(truncatingIfNeeded: rand >> (8 * UInt64(i)))) }
        p += [UInt8(ediv & 0xFF), UInt8(ediv >> 8)]
        inbox.append(ScriptedController.event(0x3E, p))
        settle()
    }

    /// What the phone makes of the key the head unit answered with (its
    /// Encryption Change status, then the SMP PDUs it sends); nil: the head
    /// unit refused the request (the phone learns the key is missing).
    public var peripheralEncryption: ([UInt8]?) -> (status: UInt8, then: [[UInt8]]) = { ltk in (ltk == nil ? 0x06 : 0, []) }
    /// The keys the head unit answered LTK requests with, nil for a refusal.
    public private(set) var longTermKeyAnswers: [[UInt8]?] = []

    /// The phone answers what it held back, and everything from now on.
    public func releaseHeldATT() {
        phoneAnswersATT = true
        let held = heldATT
        heldATT = []
        for request in held {
            for pdu in phone.receive(request) { inbox += controller.acl(handle: link, channel: 0x0004, pdu) }
        }
        settle()
    }

    /// The phone connects to the head unit (it is the central, we the
    /// peripheral), as it does to a NotifBridge receiver.
    public func phoneConnectsToUs() {
        guard !isLinkUp else { return }
        isLinkUp = true
        frames = L2CAPFrames()
        inbox.append(ScriptedController.connectionComplete(handle: link, peer: phoneAddress, asPeripheral: true))
        settle()
    }

    /// The radio link is lost (supervision timeout) or the phone ends it.
    public func dropLink(reason: UInt8 = 0x08) {
        guard isLinkUp else { return }
        isLinkUp = false
        heldATT = []
        inbox.append(ScriptedController.disconnectionComplete(handle: link, reason: reason))
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

    // MARK: - The controller and the phone

    private func advertisement() -> [UInt8] {
        var data: [UInt8] = [2, 0x01, 0x06]
        if advertisesService { data += [17, 0x07] + NavigationNotifierUUIDs.service.compactLittleEndian }
        return ScriptedController.advertisingReport(phoneAddress, data: data)
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
                phone.bondingCompleted()
            default:
                break
            }
        }
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
            case .leCreateConnection where !isLinkUp && acceptsConnections:
                isLinkUp = true
                frames = L2CAPFrames()
                inbox.append(ScriptedController.connectionComplete(handle: link, peer: phoneAddress))
            case .disconnect where p.count >= 2:
                // Only the phone's own link; another (a stranger a test
                // connected with `deliver`) is the test's to end.
                if UInt16(p[0]) | UInt16(p[1]) << 8 == link { isLinkUp = false }
            case .leLongTermKeyRequestReply where p.count >= 18, .leLongTermKeyRequestNegativeReply:
                let ltk = command.opcode == .leLongTermKeyRequestReply ? Array(p[2..<18]) : nil
                longTermKeyAnswers.append(ltk)
                let outcome = peripheralEncryption(ltk)
                inbox.append(ScriptedController.encryptionChange(handle: link, status: outcome.status))
                for pdu in outcome.then { inbox += controller.acl(handle: link, channel: 0x0006, pdu) }
            case .leEnableEncryption where p.count >= 28:
                let outcome = encryption(Array(p[12..<28]))
                inbox.append(ScriptedController.encryptionChange(handle: link, status: outcome.status))
                for pdu in outcome.then { inbox += controller.acl(handle: link, channel: 0x0006, pdu) }
            default:
                break
            }
        case .aclData:
            let body = packet.body
            guard body.count >= 4 else { return }
            inbox.append(ScriptedController.completed(handle: link))
            guard isLinkUp, let frame = frames.take(body) else { return }
            switch frame.channel {
            case 0x0004 where !phoneAnswersATT:
                heldATT.append(frame.payload)
            case 0x0004:
                for pdu in phone.receive(frame.payload) { inbox += controller.acl(handle: link, channel: 0x0004, pdu) }
            case 0x0006:
                smpSent.append(frame.payload)
                for pdu in smp?(frame.payload) ?? [] { inbox += controller.acl(handle: link, channel: 0x0006, pdu) }
            default:
                break
            }
        default:
            break
        }
    }
}
