import BluetoothCore

/// The sans-I/O HCI host: fed H4 bytes and time, it returns H4 packets to
/// send and `HostEvent`s. It is the one facade the layers above talk to;
/// each of its jobs is an extension in a file of its own:
///
/// - `Host+Commands`: commands in and completions out, as values
///   (`CommandFlow` holds the queue, the credits and the timeouts);
/// - `Host+ACLFlow`: ACL flow control, fragmentation and reassembly;
/// - `Host+Links`: each link's state in one `HostConnection`, made and
///   removed in one place;
/// - `Host+ScanningAndConnecting`: scanning and LE connections as central;
/// - `Host+Advertising`: advertising (the `Advertiser`) for links as peripheral;
/// - `Host+LongTermKeys`: the answers to LTK requests as peripheral;
/// - `Host+BringUp`: controller bring-up (`ControllerBringUp`) and recovery;
/// - `Host+Incoming`: the controller's packets, routed to the above.
public final class Host {
    public let configuration: HostConfiguration
    public internal(set) var controller = ControllerInfo()
    public internal(set) var isReady = false
    /// Every link, with all the host keeps for it.
    var connections = ConnectionTable<HostConnection>()
    public internal(set) var isScanning = false
    /// The peer of an LE Create Connection in progress.
    public internal(set) var connectingTo: BluetoothAddress?
    /// Our advertising: what the owner asked for and where it stands.
    public internal(set) var advertiser = Advertiser()
    /// Legacy or extended advertising, scanning and connecting: chosen once
    /// per bring-up from the controller's description, never mixed.
    public var commandForm: LECommandForm { controller.commandForm }

    /// The scan the owner asked for, kept to resume it after a pause for
    /// the resolving list (which must not change while the controller scans).
    var scanPausedForLists: ScanSettings?
    var lastScan = ScanSettings(active: true, interval: 0x0060, window: 0x0030, filterDuplicates: false)

    /// Sees every packet in both directions, for btsnoop traces.
    public var packetObserver: ((HCIPacket, TraceDirection) -> Void)?

    var framer = H4Framer()
    /// Malformed packets are logged a few at a time: a controller passes up
    /// whatever nearby devices send, at any rate.
    var malformedLog = LogThrottle()
    /// Packets dropped because they could not be decoded.
    public var malformedPacketsDropped: Int { malformedLog.total }
    private var outgoing = FIFO<HCIPacket>()
    @usableFromInline var events = FIFO<HostEvent>()

    var commands: CommandFlow
    /// Free ACL buffers in the controller (LE Read Buffer Size's count at first).
    var aclCredits = 0
    /// Where the round robin over the links' ACL queues goes on.
    var aclNext = 0

    // Bring-up and recovery.
    var bringUp: ControllerBringUp?
    /// Counts bring-ups: an answer to an earlier one is not this one's.
    var generation = 0
    var recoveryAt: Instant?
    var recoveryBackoff: Int64
    var now = Instant.zero

    public init(configuration: HostConfiguration = HostConfiguration()) {
        self.configuration = configuration
        self.commands = CommandFlow(timeoutMilliseconds: configuration.commandTimeoutMilliseconds)
        self.recoveryBackoff = configuration.recoveryBackoffMilliseconds
    }

    /// The links the controller reported, by handle.
    public var links: ConnectionTable<Link> {
        var table = ConnectionTable<Link>()
        for (handle, connection) in connections { table[handle] = connection.link }
        return table
    }

    // MARK: - Driving the host

    /// Starts bring-up: call once the transport is open.
    public func start(now: Instant) {
        self.now = now
        startBringUp()
    }

    /// The transport closed: every link is gone and nothing can be sent.
    /// Call `start` again once it is open.
    public func transportClosed(now: Instant) {
        self.now = now
        dropEverything()
        framer.reset()
        outgoing.removeAll()
        recoveryAt = nil
    }

    /// Bytes read from the transport: any cut of the H4 stream.
    public func receive<C: Collection>(_ bytes: C, now: Instant) where C.Element == UInt8 {
        self.now = now
        framer.append(bytes)
        receiveFramed()
    }

    /// The same for an array (the core's way in), without the generic path.
    public func receive(_ bytes: [UInt8], now: Instant) {
        self.now = now
        framer.append(bytes)
        receiveFramed()
    }

    /// Each packet the framer has, read where it lies in its buffer.
    private func receiveFramed() {
        while let packet = framer.nextInPlace() { receive(packet.type, packet.body) }
    }

    /// The next packet to write to the transport, or nil when there is none.
    public func pollTransmit(now: Instant) -> HCIPacket? {
        self.now = now
        commands.sent(now: now)
        return outgoing.popFirst()
    }

    /// Inlinable, like the other layers' polls: the core polls it on every
    /// pass, and mostly finds it empty.
    @inlinable public func pollEvent() -> HostEvent? { events.popFirst() }
    /// Whether `pollEvent` has anything.
    @inlinable public var hasEvents: Bool { !events.isEmpty }
    /// The next event, while `hasEvents`: no optional for the caller to
    /// destroy at the end of its loop (see `FIFO.removeFirst`).
    @inlinable public func takeEvent() -> HostEvent { events.removeFirst() }

    /// When the host next needs `handleTimeout`.
    public var nextDeadline: Instant? {
        earliest(earliest(recoveryAt, advertiser.nextDeadline), commands.nextDeadline)
    }

    public func handleTimeout(now: Instant) {
        self.now = now
        advertiser.handleTimeout(now: now)
        pumpAdvertiser()
        if let at = recoveryAt, at <= now {
            recoveryAt = nil
            startBringUp()
            return
        }
        switch commands.stuck(now: now) {
        case .unanswered(let opcode)?:
            Log.error("hci", "controller did not answer \(opcode) within \(configuration.commandTimeoutMilliseconds) ms")
            recover(reason: "controller did not answer \(opcode)")
        case .noCredit?:
            Log.error("hci", "controller granted no command credit for \(configuration.commandTimeoutMilliseconds) ms")
            recover(reason: "controller granted no command credit")
        case nil:
            break
        }
    }

    // MARK: - Output

    func transmit(_ packet: HCIPacket) {
        packetObserver?(packet, .sent)
        outgoing.append(packet)
    }

    func emit(_ event: HostEvent) { events.append(event) }
}
