import BluetoothCore

/// What the HCI host reports to the layers above it.
public enum HostEvent: Equatable {
    /// Bring-up finished; the controller takes LE commands.
    case ready(ControllerInfo)
    /// The controller misbehaved (a command went unanswered, Hardware Error,
    /// bring-up failure). Every link is gone; the host resets it and reports
    /// `.ready` again when it is back.
    case controllerReset(reason: String)
    case advertisingReport(AdvertisingReport)
    case connected(Link)
    case connectionFailed(peer: BluetoothAddress, status: HCIStatus)
    case disconnected(handle: ConnectionHandle, reason: HCIStatus)
    case connectionUpdated(handle: ConnectionHandle, interval: UInt16, latency: UInt16, supervisionTimeout: UInt16)
    case dataLengthChanged(handle: ConnectionHandle, maxTxOctets: UInt16, maxRxOctets: UInt16)
    /// A complete L2CAP frame (basic header included), reassembled from ACL fragments.
    case l2capFrame(handle: ConnectionHandle, frame: [UInt8])
    case encryptionChanged(handle: ConnectionHandle, status: HCIStatus, enabled: Bool)
    case encryptionKeyRefreshed(handle: ConnectionHandle, status: HCIStatus)
    case longTermKeyRequest(handle: ConnectionHandle, random: UInt64, ediv: UInt16)
    /// A command the controller refused (Command Status or Complete with an error).
    case commandFailed(opcode: HCIOpcode, status: HCIStatus)
}

/// How a command ended.
public enum CommandResult: Equatable {
    /// Command Complete: the return parameters (status first, for almost every command).
    case complete([UInt8])
    /// Command Status: the controller started (or refused) an asynchronous command.
    case pending(HCIStatus)
    /// No answer within the command timeout, or the controller was reset first.
    case notAnswered

    /// The status byte: the first return parameter, or the Command Status status.
    public var status: HCIStatus {
        switch self {
        case .complete(let p): return p.first.map { HCIStatus($0) } ?? .success
        case .pending(let s): return s
        case .notAnswered: return .unspecifiedError
        }
    }
}

public enum TraceDirection {
    case sent, received
}

public struct HostConfiguration {
    /// A command unanswered for this long means the controller is stuck.
    public var commandTimeoutMilliseconds: Int64 = 3000
    /// Pause before bring-up is tried again after it failed.
    public var recoveryBackoffMilliseconds: Int64 = 1000
    public var recoveryBackoffMaxMilliseconds: Int64 = 30_000

    public init() {}
}

/// The sans-I/O HCI host: fed H4 bytes and time, it returns H4 packets to
/// send and `HostEvent`s. It owns command flow control
/// (Num_HCI_Command_Packets), ACL flow control (the controller's buffer count
/// and Number Of Completed Packets), ACL fragmentation and reassembly,
/// controller bring-up and recovery, scanning and LE connections as
/// central, and advertising (the `Advertiser`) for links as peripheral.
public final class Host {
    public let configuration: HostConfiguration
    public private(set) var controller = ControllerInfo()
    public private(set) var isReady = false
    public private(set) var links = ConnectionTable<Link>()
    public private(set) var isScanning = false
    /// The peer of an LE Create Connection in progress.
    public private(set) var connectingTo: BluetoothAddress?
    /// Our advertising: what the owner asked for and where it stands.
    public private(set) var advertiser = Advertiser()
    /// Legacy or extended advertising, scanning and connecting: chosen once
    /// per bring-up from the controller's description, never mixed.
    public var commandForm: LECommandForm { controller.commandForm }

    /// The scan the owner asked for, kept to resume it after a pause for
    /// the resolving list (which must not change while the controller scans).
    private struct ScanSettings {
        var active: Bool
        var interval: UInt16
        var window: UInt16
        var filterDuplicates: Bool
    }
    private var scanPausedForLists: ScanSettings?
    private var lastScan = ScanSettings(active: true, interval: 0x0060, window: 0x0030, filterDuplicates: false)

    /// Sees every packet in both directions, for btsnoop traces.
    public var packetObserver: ((HCIPacket, TraceDirection) -> Void)?

    private var framer = H4Framer()
    /// Malformed packets are logged a few at a time: a controller passes up
    /// whatever nearby devices send, at any rate.
    private var malformedLog = LogThrottle()
    /// Packets dropped because they could not be decoded.
    public var malformedPacketsDropped: Int { malformedLog.total }
    private var outgoing = FIFO<HCIPacket>()
    private var events = FIFO<HostEvent>()

    // Command flow control.
    private struct PendingCommand {
        var command: HCICommand
        var completion: ((CommandResult) -> Void)?
        /// Set when the command leaves through `pollTransmit(now:)`.
        var deadline: Instant?
    }
    private var commandCredits = 1
    /// The controller left us with commands queued and no credit (since when).
    private var creditsExhausted = false
    private var creditsExhaustedAt: Instant?
    private var commandQueue: [PendingCommand] = []
    private var inFlight: [PendingCommand] = []

    // ACL flow control.
    private var aclCredits = 0
    private var aclInFlight = ConnectionTable<Int>()
    private var aclQueues = ConnectionTable<[ACLPacket]>()
    private var aclOrder: [ConnectionHandle] = []
    private var aclNext = 0
    private var reassembler = ACLReassembler()

    // Recovery.
    private var generation = 0
    private var recoveryAt: Instant?
    private var recoveryBackoff: Int64
    private var now = Instant.zero

    public init(configuration: HostConfiguration = HostConfiguration()) {
        self.configuration = configuration
        self.recoveryBackoff = configuration.recoveryBackoffMilliseconds
    }

    // MARK: - Driving the host

    /// Starts bring-up: call once the transport is open.
    public func start(now: Instant) {
        self.now = now
        bringUp()
    }

    /// The transport closed: every link is gone and nothing can be sent.
    /// Call `start` again once it is open.
    public func transportClosed(now: Instant) {
        self.now = now
        dropEverything(failCommands: true)
        framer.reset()
        outgoing.removeAll()
        recoveryAt = nil
    }

    /// Bytes read from the transport: any cut of the H4 stream.
    public func receive<C: Collection>(_ bytes: C, now: Instant) where C.Element == UInt8 {
        self.now = now
        framer.append(bytes)
        while let packet = framer.next() { receive(packet) }
    }

    /// The next packet to write to the transport, or nil when there is none.
    /// `now` starts the answer timer of commands leaving now: commands can
    /// be queued from anywhere, but only the transmit path knows the time.
    public func pollTransmit(now: Instant) -> HCIPacket? {
        self.now = now
        for i in inFlight.indices where inFlight[i].deadline == nil {
            inFlight[i].deadline = now.adding(milliseconds: configuration.commandTimeoutMilliseconds)
        }
        if creditsExhausted && creditsExhaustedAt == nil { creditsExhaustedAt = now }
        return outgoing.popFirst()
    }

    public func pollEvent() -> HostEvent? { events.popFirst() }

    /// When the host next needs `handleTimeout`.
    public var nextDeadline: Instant? {
        var deadline = earliest(recoveryAt, advertiser.nextDeadline)
        for pending in inFlight { deadline = earliest(deadline, pending.deadline) }
        if let since = creditsExhaustedAt {
            deadline = earliest(deadline, since.adding(milliseconds: configuration.commandTimeoutMilliseconds))
        }
        return deadline
    }

    public func handleTimeout(now: Instant) {
        self.now = now
        advertiser.handleTimeout(now: now)
        pumpAdvertiser()
        if let at = recoveryAt, at <= now {
            recoveryAt = nil
            bringUp()
            return
        }
        if let stuck = inFlight.first(where: { $0.deadline.map { $0 <= now } ?? false }) {
            let opcode = stuck.command.opcode
            Log.error("hci", "controller did not answer \(opcode) within \(configuration.commandTimeoutMilliseconds) ms")
            recover(reason: "controller did not answer \(opcode)")
        } else if let since = creditsExhaustedAt, since.adding(milliseconds: configuration.commandTimeoutMilliseconds) <= now {
            Log.error("hci", "controller granted no command credit for \(configuration.commandTimeoutMilliseconds) ms")
            recover(reason: "controller granted no command credit")
        }
    }

    // MARK: - Commands

    /// Queues a command; it goes out when the controller has a command credit.
    /// A command the controller does not list in its Supported_Commands
    /// (`SupportedCommand`) is not sent at all: the completion gets, at
    /// once, the Unknown HCI Command a controller would have answered.
    public func send(_ command: HCICommand, completion: ((CommandResult) -> Void)? = nil) {
        if isReady, let checked = SupportedCommand(opcode: command.opcode), !controller.supports(checked) {
            Log.warning("hci", "\(command.opcode) not sent: the controller does not support it")
            completion?(.complete([HCIStatus.unknownCommand.code]))
            return
        }
        commandQueue.append(PendingCommand(command: command, completion: completion))
        pumpCommands()
    }

    /// Queues a command whose Command Complete carries return parameters
    /// of type `R`: the completion gets them decoded, or why not.
    public func send<R: CommandReturn>(_ command: HCICommand, returning: R.Type,
                                       completion: @escaping (Result<R, CommandFailure>) -> Void) {
        let opcode = command.opcode
        send(command) { result in completion(result.decode(R.self, for: opcode)) }
    }

    /// The key size of an encrypted link, which decides whether it may be
    /// used at all (KNOB). A reply for another link counts as malformed.
    public func readEncryptionKeySize(_ handle: ConnectionHandle,
                                      completion: @escaping (Result<ReadEncryptionKeySizeResult, CommandFailure>) -> Void) {
        send(.readEncryptionKeySize(handle), returning: ReadEncryptionKeySizeResult.self) { result in
            if case .success(let reply) = result, reply.handle != handle {
                Log.warning("hci", "Read_Encryption_Key_Size for \(handle) answered for \(reply.handle)")
                return completion(.failure(.malformedReply(.readEncryptionKeySize, length: 4)))
            }
            if case .failure(let failure) = result {
                Log.warning("hci", "Read_Encryption_Key_Size on \(handle): \(failure)")
            }
            completion(result)
        }
    }

    /// Scans, in the controller's command form. Only once the controller is
    /// ready: before that the form is not known, and a legacy command in
    /// the middle of bring-up could commit a strict controller to the
    /// legacy form (Core Vol 4 Part E 3.1.1). The owner scans on `.ready`.
    public func startScanning(active: Bool, interval: UInt16 = 0x0060, window: UInt16 = 0x0030, filterDuplicates: Bool = false) {
        guard isReady else {
            Log.debug("hci", "scan not started: the controller is not ready")
            return
        }
        if scanPausedForLists != nil {
            // Resumed with these settings once the lists are programmed.
            scanPausedForLists = ScanSettings(active: active, interval: interval, window: window, filterDuplicates: filterDuplicates)
            return
        }
        lastScan = ScanSettings(active: active, interval: interval, window: window, filterDuplicates: filterDuplicates)
        if isScanning { send(scanEnable(false, filterDuplicates: false)) }
        send(commandForm.isExtended
            ? .leSetExtendedScanParameters(active: active, interval: interval, window: window)
            : .leSetScanParameters(active: active, interval: interval, window: window))
        send(scanEnable(true, filterDuplicates: filterDuplicates)) { [unowned(unsafe) self] result in
            if result.status.isSuccess { self.isScanning = true }
        }
    }

    public func stopScanning() {
        scanPausedForLists = nil
        guard isScanning else { return }
        isScanning = false
        send(scanEnable(false, filterDuplicates: false))
    }

    /// LE Set (Extended) Scan Enable, in the controller's command form.
    private func scanEnable(_ enable: Bool, filterDuplicates: Bool) -> HCICommand {
        commandForm.isExtended ? .leSetExtendedScanEnable(enable, filterDuplicates: filterDuplicates)
            : .leSetScanEnable(enable, filterDuplicates: filterDuplicates)
    }

    /// Starts an LE connection as central. Scanning stops first: many
    /// controllers refuse to initiate while scanning.
    public func connect(to peer: BluetoothAddress, parameters: ConnectionParameters = .default) {
        guard connectingTo == nil else {
            Log.warning("hci", "connect to \(peer) ignored: a connection to \(connectingTo!) is being set up")
            return
        }
        guard isReady else {
            // As for a scan: the command form is not known yet.
            Log.info("hci", "connect to \(peer) refused: the controller is not ready")
            return emit(.connectionFailed(peer: peer, status: .commandDisallowed))
        }
        stopScanning()
        connectingTo = peer
        let command: HCICommand = commandForm.isExtended
            ? .leExtendedCreateConnection(peer: peer, parameters: parameters)
            : .leCreateConnection(peer: peer, parameters: parameters)
        send(command) { [unowned(unsafe) self] result in
            let status = result.status
            if !status.isSuccess, self.connectingTo == peer {
                self.connectingTo = nil
                self.emit(.connectionFailed(peer: peer, status: status))
            }
        }
    }

    /// Cancels a connection attempt; `.connectionFailed` follows (status 0x02)
    /// unless the link came up first. One command for both forms (7.8.13).
    public func cancelConnect() {
        guard connectingTo != nil else { return }
        send(.leCreateConnectionCancel())
    }

    public func disconnect(_ handle: ConnectionHandle, reason: HCIStatus = .remoteUserTerminated) {
        guard links[handle] != nil else { return }
        send(.disconnect(handle, reason: reason))
    }

    // MARK: - Advertising and peripheral links

    /// Our identity as peripheral: advertising uses it as own address
    /// (type random). Set it before `start`, so LE Set Random Address goes
    /// out before any scan (controllers before 5.3 refuse it while scanning).
    /// Scanning and connecting as central keep the public address.
    public func setIdentityAddress(_ address: StaticRandomAddress) {
        advertiser.setIdentity(address)
        pumpAdvertiser()
    }

    /// Advertises `payload`, connectable: 20 ms for 30 s, then 152.5 ms.
    /// Paused while a phone's link to us is secure (`peripheralLinkSecured`),
    /// fast again when it leaves;
    /// kept through controller resets. A new payload replaces the old.
    public func startAdvertising(_ payload: AdvertisingPayload) {
        advertiser.start(payload, now: now)
        pumpAdvertiser()
    }

    /// Advertises `advertisement`: a set per payload where the controller
    /// has enough, its combined payload otherwise (see `Advertiser`).
    public func startAdvertising(_ advertisement: Advertisement) {
        advertiser.start(advertisement, now: now)
        pumpAdvertiser()
    }

    /// The slow interval at once, before the 30 s are up.
    public func slowAdvertising() {
        advertiser.slowDown()
        pumpAdvertiser()
    }

    public func stopAdvertising() {
        advertiser.stop()
        pumpAdvertiser()
    }

    /// Who may connect. `advertiser.filtering` then says whether the
    /// controller enforces it or the owner must refuse strangers itself.
    public func setAdvertisingAudience(_ audience: AdvertisingAudience) {
        advertiser.setAudience(audience)
        pumpAdvertiser()
    }

    /// The owner's word that a peripheral link is secure (encrypted with a
    /// bond, or paired): advertising pauses until that link goes. Until
    /// then a connection does not pause it, so that a device that connects
    /// and never pairs cannot keep the owner's phone out.
    public func peripheralLinkSecured(_ handle: ConnectionHandle) {
        guard links[handle]?.role == .peripheral else { return }
        advertiser.peripheralSecured(handle)
        pumpAdvertiser()
    }

    /// Answers `.longTermKeyRequest` on a peripheral link with the key
    /// (16 octets, least significant first); Encryption Change follows.
    public func replyToLongTermKeyRequest(_ handle: ConnectionHandle, ltk: [UInt8]) {
        guard links[handle] != nil else {
            Log.debug("hci", "LTK for link \(handle), which is gone; dropped")
            return
        }
        guard ltk.count == 16 else {
            Log.error("hci", "LTK of \(ltk.count) octets for \(handle); refusing the request instead")
            return refuseLongTermKeyRequest(handle)
        }
        send(.leLongTermKeyRequestReply(handle, ltk: ltk)) { result in
            if !result.status.isSuccess { Log.warning("hci", "LTK Request Reply on \(handle): \(result.status)") }
        }
    }

    /// No key for this peer: the controller refuses encryption and the
    /// phone learns it has to pair again.
    public func refuseLongTermKeyRequest(_ handle: ConnectionHandle) {
        guard links[handle] != nil else { return }
        send(.leLongTermKeyRequestNegativeReply(handle)) { result in
            if !result.status.isSuccess { Log.warning("hci", "LTK Request Negative Reply on \(handle): \(result.status)") }
        }
    }

    /// Sends what the advertiser needs next, one command at a time, and
    /// pauses the scan while the resolving list changes.
    private func pumpAdvertiser() {
        guard isReady else { return }
        if advertiser.needsScanningPaused, isScanning {
            Log.info("hci", "scanning paused while the resolving list is programmed")
            let settings = lastScan
            stopScanning()
            scanPausedForLists = settings
        } else if !advertiser.needsScanningPaused, let settings = scanPausedForLists {
            scanPausedForLists = nil
            startScanning(active: settings.active, interval: settings.interval, window: settings.window,
                          filterDuplicates: settings.filterDuplicates)
        }
        while let command = advertiser.nextCommand(now: now) {
            send(command) { [unowned(unsafe) self] result in
                self.advertiser.completed(result, now: self.now)
                self.pumpAdvertiser()
            }
        }
    }

    /// Queues a complete L2CAP frame for a link; it is cut to the
    /// controller's ACL size and sent as buffers free up.
    public func sendL2CAP(_ frame: [UInt8], on handle: ConnectionHandle) {
        guard links[handle] != nil else {
            Log.debug("hci", "frame for link \(handle), which is gone; dropped")
            return
        }
        let fragments = ACLPacket.fragments(of: frame, handle: handle, maxLength: controller.aclDataLength)
        if aclQueues[handle] == nil { aclOrder.append(handle) }
        aclQueues[handle, default: []].append(contentsOf: fragments)
        pumpACL()
    }

    /// Commands queued or sent and not yet answered.
    public var hasCommandsOutstanding: Bool { !inFlight.isEmpty || !commandQueue.isEmpty }

    /// ACL packets waiting for controller buffers, over all links.
    public var queuedACLPackets: Int { aclQueues.values.reduce(0) { $0 + $1.count } }

    // MARK: - Incoming packets

    private func receive(_ packet: HCIPacket) {
        packetObserver?(packet, .received)
        switch packet.type {
        case .event:
            guard let event = HCIEvent(body: packet.body) else {
                if let skipped = malformedLog.occurrence(now: now) {
                    Log.warning("hci", "malformed event dropped: \(hexString(packet.body.prefix(32)))\(LogThrottle.suffix(skipped))")
                }
                return
            }
            handle(event)
        case .aclData:
            guard let acl = ACLPacket(body: packet.body) else {
                if let skipped = malformedLog.occurrence(now: now) {
                    Log.warning("hci", "malformed ACL packet dropped (length field disagrees)\(LogThrottle.suffix(skipped))")
                }
                return
            }
            guard links[acl.handle] != nil else {
                Log.debug("hci", "ACL data for unknown link \(acl.handle) dropped")
                return
            }
            if let frame = reassembler.push(acl) { emit(.l2capFrame(handle: acl.handle, frame: frame)) }
        default:
            Log.debug("hci", "ignoring packet of type \(packet.type.rawValue)")
        }
    }

    private func handle(_ event: HCIEvent) {
        switch event {
        case let .commandComplete(credits, opcode, params):
            commandAnswered(opcode: opcode, credits: credits, result: .complete(params))
            if let s = params.first, s != 0, opcode.value != 0 {
                Log.debug("hci", "\(opcode) failed: \(HCIStatus(s))")
            }
        case let .commandStatus(status, credits, opcode):
            commandAnswered(opcode: opcode, credits: credits, result: .pending(status))
            if !status.isSuccess, opcode.value != 0 {
                Log.warning("hci", "\(opcode) refused: \(status)")
                emit(.commandFailed(opcode: opcode, status: status))
            }
        case let .disconnectionComplete(status, handle, reason):
            guard status.isSuccess else {
                Log.warning("hci", "disconnect of \(handle) failed: \(status)")
                return
            }
            linkGone(handle)
            emit(.disconnected(handle: handle, reason: reason))
        case let .encryptionChange(status, handle, enabled):
            links[handle]?.encrypted = status.isSuccess && enabled
            emit(.encryptionChanged(handle: handle, status: status, enabled: enabled))
        case let .encryptionKeyRefreshComplete(status, handle):
            emit(.encryptionKeyRefreshed(handle: handle, status: status))
        case .readRemoteVersionComplete:
            break
        case let .hardwareError(code):
            Log.error("hci", "controller reported Hardware Error 0x\(hex(code, digits: 2)); resetting it")
            recover(reason: "Hardware Error 0x\(hex(code, digits: 2))")
        case let .numberOfCompletedPackets(entries):
            for (handle, count) in entries {
                let inFlightCount = aclInFlight[handle] ?? 0
                let returned = min(Int(count), inFlightCount)
                if returned < Int(count) {
                    Log.warning("hci", "controller completed \(count) packets on \(handle) but only \(inFlightCount) were in flight")
                }
                aclInFlight[handle] = inFlightCount - returned
                aclCredits = min(controller.aclBufferCount, aclCredits + returned)
            }
            pumpACL()
        case let .dataBufferOverflow(linkType):
            Log.error("hci", "controller reports a data buffer overflow (link type \(linkType)): ACL flow control out of step")
        case let .le(meta):
            handle(meta)
        case let .other(code, _):
            Log.debug("hci", "unhandled event 0x\(hex(code, digits: 2))")
        }
    }

    private func handle(_ meta: LEMetaEvent) {
        switch meta {
        case let .connectionComplete(c):
            if connectingTo != nil, c.role == .central { connectingTo = nil }
            guard c.status.isSuccess else {
                Log.info("hci", "connection to \(c.peer) not established: \(c.status)")
                emit(.connectionFailed(peer: c.peer, status: c.status))
                return
            }
            // As peripheral the controller advertised with our identity
            // when one is set; as central it uses the public address.
            let local = c.role == .peripheral ? (advertiser.identity?.address ?? controller.address) : controller.address
            let link = Link(handle: c.handle, role: c.role, peer: c.peer, localAddress: local,
                            peerResolvablePrivateAddress: c.peerResolvablePrivateAddress, interval: c.interval,
                            latency: c.latency, supervisionTimeout: c.supervisionTimeout)
            links[c.handle] = link
            aclInFlight[c.handle] = 0
            Log.info("hci", "connected to \(c.peer) as \(c.role == .central ? "central" : "peripheral"), handle \(c.handle), interval \(c.interval)")
            requestLongPDUs(on: c.handle)
            if c.role == .peripheral {
                advertiser.peripheralConnected(c.handle)
                pumpAdvertiser()
            }
            emit(.connected(link))
        case let .advertisingReports(reports):
            for report in reports { emit(.advertisingReport(report)) }
        case let .connectionUpdateComplete(status, handle, interval, latency, timeout):
            guard status.isSuccess else {
                Log.info("hci", "connection update on \(handle) failed: \(status)")
                return
            }
            links[handle]?.interval = interval
            links[handle]?.latency = latency
            links[handle]?.supervisionTimeout = timeout
            emit(.connectionUpdated(handle: handle, interval: interval, latency: latency, supervisionTimeout: timeout))
        case let .longTermKeyRequest(handle, random, ediv):
            emit(.longTermKeyRequest(handle: handle, random: random, ediv: ediv))
        case let .remoteConnectionParameterRequest(handle, parameters):
            // The peer asks for new parameters at the link layer. Take any
            // valid request: iOS asks for what its power management needs.
            if parameters.isValid {
                send(.leRemoteConnectionParameterRequestReply(handle, parameters))
            } else {
                Log.warning("hci", "rejecting invalid connection parameters from \(handle): \(parameters)")
                send(.leRemoteConnectionParameterRequestNegativeReply(handle, reason: .unacceptableConnectionParameters))
            }
        case let .dataLengthChange(handle, maxTx, _, maxRx, _):
            links[handle]?.maxTxOctets = maxTx
            links[handle]?.maxRxOctets = maxRx
            emit(.dataLengthChanged(handle: handle, maxTxOctets: maxTx, maxRxOctets: maxRx))
        case let .other(subevent, _):
            Log.debug("hci", "unhandled LE subevent 0x\(hex(subevent, digits: 2))")
        }
    }

    /// Data Length Extension: asks the controller to send link-layer PDUs of
    /// up to 251 octets on a new link (the phone raises its own direction by
    /// itself, as iPhones do). A 231-byte ANCS answer then travels as one PDU
    /// instead of nine, and costs fewer radio events. Controllers without the
    /// feature keep 27 octets; a refusal changes nothing else.
    private func requestLongPDUs(on handle: ConnectionHandle) {
        guard controller.supportsDataLengthExtension, controller.supports(.leSetDataLength) else { return }
        // 2120 µs: 251 octets on the 1M PHY (Core spec Vol 6, Part B, 4.5.10).
        send(.leSetDataLength(handle, txOctets: 251, txTime: 2120)) { result in
            if result.status != .success {
                Log.debug("hci", "LE Set Data Length on \(handle): \(result.status)")
            }
        }
    }

    // MARK: - Flow control

    private func commandAnswered(opcode: HCIOpcode, credits: UInt8, result: CommandResult) {
        // Num_HCI_Command_Packets is the number of commands the controller
        // takes from now on, not an increment.
        commandCredits = Int(credits)
        if opcode.value != 0 {
            if let index = inFlight.firstIndex(where: { $0.command.opcode == opcode }) {
                let pending = inFlight.remove(at: index)
                pending.completion?(result)
            } else {
                Log.warning("hci", "answer for \(opcode), which was not sent; ignored")
            }
        }
        pumpCommands()
    }

    private func pumpCommands() {
        while !commandQueue.isEmpty, commandCredits > 0 {
            let pending = commandQueue.removeFirst()
            commandCredits -= 1
            inFlight.append(pending)
            transmit(pending.command.packet)
        }
        // Zero credits with nothing in flight is legal (a NOP will grant
        // more), but a controller that never does is as stuck as a silent one.
        creditsExhausted = !commandQueue.isEmpty && inFlight.isEmpty
        if !creditsExhausted { creditsExhaustedAt = nil }
    }

    private func pumpACL() {
        while aclCredits > 0, !aclOrder.isEmpty {
            if aclNext >= aclOrder.count { aclNext = 0 }
            let handle = aclOrder[aclNext]
            guard var queue = aclQueues[handle], !queue.isEmpty else {
                aclQueues[handle] = nil
                aclOrder.remove(at: aclNext)
                continue
            }
            let packet = queue.removeFirst()
            if queue.isEmpty {
                aclQueues[handle] = nil
                aclOrder.remove(at: aclNext)
            } else {
                aclQueues[handle] = queue
                aclNext += 1
            }
            aclCredits -= 1
            aclInFlight[handle, default: 0] += 1
            transmit(packet.packet)
        }
    }

    private func transmit(_ packet: HCIPacket) {
        packetObserver?(packet, .sent)
        outgoing.append(packet)
    }

    private func emit(_ event: HostEvent) { events.append(event) }

    private func linkGone(_ handle: ConnectionHandle) {
        if links[handle]?.role == .peripheral {
            advertiser.peripheralDisconnected(handle, now: now)
            pumpAdvertiser()
        }
        links[handle] = nil
        aclCredits = min(controller.aclBufferCount, aclCredits + (aclInFlight[handle] ?? 0))
        aclInFlight[handle] = nil
        aclQueues[handle] = nil
        if let i = aclOrder.firstIndex(of: handle) { aclOrder.remove(at: i) }
        reassembler.drop(handle)
    }

    // MARK: - Bring-up and recovery

    /// Starts bring-up from HCI Reset (ControllerBringUp holds the steps).
    private func bringUp() {
        generation += 1
        isReady = false
        // A reset controller forgets its advertising too.
        advertiser.controllerLost()
        controller = ControllerInfo()
        // A reset controller forgets everything in flight; start counting afresh.
        commandCredits = 1
        let machine = ControllerBringUp()
        sendBringUp(machine.firstCommand, machine)
    }

    /// Sends one bring-up command and feeds its result to the machine. A
    /// result from an earlier attempt (the generation moved on) is dropped.
    private func sendBringUp(_ command: HCICommand, _ machine: ControllerBringUp) {
        let gen = generation
        send(command) { [unowned(unsafe) self] result in
            guard gen == self.generation else { return }
            // Unanswered: the command timeout has started recovery already,
            // or the transport closed and `start` begins again.
            if result == .notAnswered { return }
            var machine = machine
            switch machine.completed(result) {
            case .send(let next):
                self.sendBringUp(next, machine)
            case .ready(let info):
                self.controllerReady(info)
            case let .failed(step, failure):
                Log.error("hci", "bring-up failed at \(step): \(failure); resetting the controller")
                self.recover(reason: "bring-up failed at \(step): \(failure)")
            }
        }
    }

    private func controllerReady(_ info: ControllerInfo) {
        controller = info
        aclCredits = info.aclBufferCount
        isReady = true
        // Before `.ready` reaches the owner: our identity address goes to
        // the controller ahead of any scan the owner starts.
        advertiser.controllerReady(info, now: now)
        pumpAdvertiser()
        recoveryBackoff = configuration.recoveryBackoffMilliseconds
        Log.info("hci", "controller \(info.address) ready: Bluetooth \(info.versionName), manufacturer 0x\(hex(info.manufacturer, digits: 4)), LE ACL \(info.aclBufferCount) x \(info.aclDataLength) bytes, \(commandForm)")
        emit(.ready(info))
    }

    /// Drops all state and schedules a fresh bring-up after a back-off that
    /// doubles up to a ceiling: a controller that never answers costs one
    /// attempt every 30 s, not a busy loop.
    private func recover(reason: String) {
        generation += 1
        dropEverything(failCommands: true)
        emit(.controllerReset(reason: reason))
        recoveryAt = now.adding(milliseconds: recoveryBackoff)
        recoveryBackoff = min(recoveryBackoff * 2, configuration.recoveryBackoffMaxMilliseconds)
    }

    private func dropEverything(failCommands: Bool) {
        isReady = false
        isScanning = false
        scanPausedForLists = nil
        let lostLinks = links.keys.sorted()
        for handle in lostLinks {
            linkGone(handle)
            emit(.disconnected(handle: handle, reason: .hardwareFailure))
        }
        if let peer = connectingTo {
            connectingTo = nil
            emit(.connectionFailed(peer: peer, status: .hardwareFailure))
        }
        advertiser.controllerLost()
        reassembler.dropAll()
        aclQueues.removeAll()
        aclOrder.removeAll()
        aclInFlight.removeAll()
        let failed = inFlight + commandQueue
        inFlight.removeAll()
        commandQueue.removeAll()
        commandCredits = 1
        creditsExhausted = false
        creditsExhaustedAt = nil
        if failCommands {
            for pending in failed { pending.completion?(.notAnswered) }
        }
    }
}
