import BluetoothCore
import CLinux
import HCI
import Platform

/// Connects the sans-I/O `Host` to a real transport inside the event loop:
/// bytes read go into the host, packets it wants sent are written (holding
/// any the descriptor cannot take yet until it is writable; on a stream,
/// the packets of one wake-up in one write), its deadline
/// becomes a loop timer, and its events go to `onEvent`. When the transport
/// fails (UART unplugged, simulator gone) it is reopened with a back-off,
/// and the host is brought up again.
public final class HCIDriver {
    public let host: Host
    public let spec: TransportSpec
    public var onEvent: ((HostEvent) -> Void)?
    /// Called with true when the transport opened and false when it closed.
    public var onTransportChange: ((Bool) -> Void)?
    /// Bytes read from the transport, with the time they were read; nil
    /// gives them straight to `host`. A program whose core owns the host
    /// takes them here, so everything they cause runs at the core's time.
    public var onReceive: (([UInt8], Instant) -> Void)?
    /// Called once the reads of one wake-up have all gone to `onReceive`
    /// (a user-channel socket gives one packet per read): the place to act
    /// on them once per wake-up rather than once per packet.
    public var onReceiveDone: (() -> Void)?

    private let loop: EventLoop
    private var transport: HCITransport?
    private var watch: EventLoop.WatchID?
    private var hostTimer: EventLoop.TimerID?
    private var reopenTimer: EventLoop.TimerID?
    private var reopenDelay: Int64 = 250
    private var outgoing = HCIWriteQueue(packetOriented: false)
    private var dispatching = false
    /// True while a wake-up's reads are being handed over: what they make
    /// the host send is queued and written once they are all in.
    private var draining = false
    private var lastOpenError = ""

    public var trace: BTSnoopWriter? {
        didSet { installObserver() }
    }

    public init(spec: TransportSpec, loop: EventLoop, host: Host = Host()) {
        self.spec = spec
        self.loop = loop
        self.host = host
    }

    public var isOpen: Bool { transport != nil }

    /// Opens the transport now, or keeps trying in the background.
    public func start() {
        installObserver()
        open()
    }

    public func shutdown() {
        if let t = reopenTimer { loop.cancel(t) }
        reopenTimer = nil
        closeTransport(notify: false)
    }

    /// Call after invoking `host` methods from outside a driver callback, so
    /// what they queued is written and their events delivered.
    public func flush() {
        guard !dispatching else { return }
        dispatching = true
        defer { dispatching = false }
        while true {
            var progressed = false
            while let packet = host.pollTransmit(now: Clock.now()) {
                if transport != nil { outgoing.append(packet) }
                progressed = true
            }
            if !draining { writePending() }
            while let event = host.pollEvent() {
                onEvent?(event)
                progressed = true
            }
            if !progressed { break }
        }
        loop.reschedule(&hostTimer, at: host.nextDeadline, handler: hostTimeout)
    }

    /// Made once: a closure written at the call would be a new allocation
    /// on every flush, several per notification.
    private lazy var hostTimeout: () -> Void = { [unowned(unsafe) self] in
        self.hostTimer = nil
        self.host.handleTimeout(now: Clock.now())
        self.flush()
    }

    // MARK: - Transport lifecycle

    private func installObserver() {
        if let writer = trace {
            host.packetObserver = { packet, direction in writer.record(packet, direction: direction) }
        } else {
            host.packetObserver = nil
        }
    }

    private func open() {
        reopenTimer = nil
        do {
            let t = try HCITransport.open(spec)
            transport = t
            outgoing = HCIWriteQueue(packetOriented: t.isPacketOriented)
            reopenDelay = 250
            lastOpenError = ""
            Log.info("hci", "transport \(spec) open")
            watch = loop.watch(t.fd) { [unowned(unsafe) self] readiness in self.ready(readiness) }
            onTransportChange?(true)
            host.start(now: Clock.now())
            flush()
        } catch {
            // Say it once per distinct failure, not on every retry.
            if error.description != lastOpenError {
                Log.error("hci", "cannot open \(spec): \(error); retrying")
                lastOpenError = error.description
            }
            scheduleReopen()
        }
    }

    private func scheduleReopen() {
        let delay = reopenDelay
        reopenDelay = min(reopenDelay * 2, 5000)
        reopenTimer = loop.schedule(at: Clock.now().adding(milliseconds: delay)) { [unowned(unsafe) self] in self.open() }
    }

    private func closeTransport(notify: Bool) {
        if let w = watch { loop.unwatch(w) }
        watch = nil
        transport?.close()
        transport = nil
        outgoing.removeAll()
        host.transportClosed(now: Clock.now())
        if notify { onTransportChange?(false) }
        flush()
    }

    private func transportFailed(_ why: String) {
        Log.error("hci", "transport \(spec) lost: \(why); reopening")
        closeTransport(notify: true)
        scheduleReopen()
    }

    // MARK: - I/O

    private func ready(_ readiness: EventLoop.Readiness) {
        guard let t = transport else { return }
        if readiness.writable { writePending() }
        // Writing may have found the transport gone.
        guard transport === t else { return }
        if readiness.readable || readiness.failed {
            draining = true
            let open = drain(t)
            draining = false
            guard open else { return }
            onReceiveDone?()
            flush()
        }
    }

    /// Hands over what is there to read; false when the transport failed.
    /// A user-channel socket gives one packet per read.
    private func drain(_ t: HCITransport) -> Bool {
        for _ in 0..<64 {
            do {
                guard let bytes = try FileDescriptor.read(t.fd, max: 4096) else { break }
                if bytes.isEmpty {
                    transportFailed("end of stream")
                    return false
                }
                if let onReceive { onReceive(bytes, Clock.now()) } else { host.receive(bytes, now: Clock.now()) }
                // A stream (TCP, UART) that gave less than asked for is
                // drained: poll(2) reports it again when more arrives,
                // so the read that would only say EAGAIN is saved.
                if !t.isPacketOriented && bytes.count < 4096 { break }
            } catch {
                transportFailed(error.description)
                return false
            }
        }
        return true
    }

    private func writePending() {
        guard let t = transport else { return }
        while !outgoing.isEmpty {
            do {
                let n = try FileDescriptor.write(t.fd, outgoing.nextWrite)
                if n == 0 { break }
                outgoing.written(n)
            } catch {
                transportFailed(error.description)
                return
            }
        }
        if let w = watch { loop.setWantsWrite(w, !outgoing.isEmpty) }
    }
}
