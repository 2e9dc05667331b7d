import BluetoothCore
import CLinux
import HCI
import Platform

/// What the transport did, for whoever drives the host to act on.
public enum HCITransportEvent {
    /// The transport is open: bring the controller up.
    case opened
    /// Bytes read, any cut of the H4 stream.
    case received([UInt8])
    /// The transport is gone (reopened later with a back-off).
    case closed
}

/// Moves H4 bytes between a controller's transport and whoever drives the
/// host, inside the event loop, and nothing else: bytes read are queued as
/// `HCITransportEvent`s for `pollEvent`, packets given to `send` are
/// written (holding any the descriptor cannot take yet until it is
/// writable; on a stream, the packets of one wake-up in one write). When the
/// transport fails (UART unplugged, simulator gone) it is reopened with a
/// back-off, its own deadline. It knows no host and keeps no host timer.
public final class HCIDriver: LoopDevice {
    public let spec: TransportSpec

    private var transport: HCITransport?
    private var reopenAt: Instant?
    private var reopen = HCIReopenSchedule()
    private var outgoing = HCIWriteQueue(packetOriented: false)
    /// The transport's openings and closings, and bytes read before a closing.
    private var events = FIFO<HCITransportEvent>()
    /// Bytes read since they were last handed out, newer than `events`:
    /// one array kept from wake-up to wake-up. The host's framer lets go
    /// of it once it has taken every packet in it, so the next wake-up
    /// reads into the same storage: no array made and freed per read.
    private var received: [UInt8] = []
    /// `received` was handed out: emptied before the next read.
    private var receivedTaken = false
    private var lastOpenError = ""
    /// A UART this driver attached whose device is still in the kernel's
    /// setup: held (its tty open) until the user channel binds.
    private var uart: UARTAttach.Attached?
    /// What each read(2) goes into before it is copied to `received`.
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: HCIDriver.readSize, alignment: 8)
    private static let readSize = 4096
    /// The links a crash ends (`endOnCrash`), and the handler armed for them.
    private var crashLinks: [ConnectionHandle] = []
    private var farewell = CrashFarewell()

    public init(spec: TransportSpec) {
        self.spec = spec
    }

    deinit { readBuffer.deallocate() }

    public var isOpen: Bool { transport != nil }

    /// Opens the transport now, or keeps trying in the background. Called
    /// again while open, it does nothing: a head unit starts its transport
    /// before it opens the display, so that the kernel sets up the UART's
    /// controller while the first frame is drawn, and again when its loop
    /// starts.
    public func start(now: Instant) {
        guard transport == nil else { return }
        open(now: now)
    }

    public func shutdown() {
        reopenAt = nil
        closeTransport(notify: false)
        if let held = uart {
            FileDescriptor.close(held.ttyFD)
            uart = nil
        }
    }

    /// What the transport did since the last call.
    public func pollEvent() -> HCITransportEvent? {
        if !events.isEmpty { return events.removeFirst() }
        guard !receivedTaken, !received.isEmpty else { return nil }
        receivedTaken = true
        return .received(received)
    }

    /// Queues a packet for the controller; dropped while the transport is closed.
    public func send(_ packet: HCIPacket) {
        if transport != nil { outgoing.append(packet) }
    }

    /// Writes what `send` queued, as much as the descriptor takes now.
    public func flush(now: Instant) { writePending(now: now) }

    /// The links to end should the process crash: HCI Disconnect for each,
    /// written from the crash signal's handler (`CrashFarewell`). Cheap when
    /// they did not change: call it once per wake-up with the live links.
    public func endOnCrash(_ links: [ConnectionHandle]) {
        guard links != crashLinks else { return }
        crashLinks = links
        armFarewell()
    }

    /// On a stream a packet cut by a short write would swallow the
    /// Disconnect, so the handler is armed only while nothing is pending
    /// there; a user-channel socket takes whole packets.
    private func armFarewell() {
        var fd: Int32? = nil
        if let t = transport, t.isPacketOriented || outgoing.isEmpty { fd = t.fd }
        farewell.update(fd: fd, links: crashLinks)
    }

    // MARK: - LoopDevice

    public func addDescriptors(to set: inout PollSet) {
        guard let t = transport else { return }
        set.add(t.fd, writable: !outgoing.isEmpty)
    }

    public var nextDeadline: Instant? { reopenAt }

    public func handleTimeout(now: Instant) {
        guard let at = reopenAt, at <= now else { return }
        open(now: now)
    }

    public func handle(_ readiness: Readiness, on fd: Int32, now: Instant) {
        guard let t = transport, t.fd == fd else { return }
        if readiness.writable { writePending(now: now) }
        // Writing may have found the transport gone.
        guard transport === t else { return }
        if readiness.readable || readiness.failed { drain(t, now: now) }
    }

    // MARK: - Transport lifecycle

    private func open(now: Instant) {
        reopenAt = nil
        do {
            let t = try HCITransport.open(spec, uart: &uart)
            transport = t
            outgoing = HCIWriteQueue(packetOriented: t.isPacketOriented)
            reopen.opened()
            lastOpenError = ""
            Log.info("hci", "transport \(spec) open")
            events.append(.opened)
        } catch {
            let stillComing = controllerStillComing(error)
            // Say it once per distinct failure, not on every retry. A
            // controller still in the kernel's setup is how every Pi boot
            // begins (the head unit starts beside its patch RAM): no error.
            if error.description != lastOpenError {
                if stillComing {
                    Log.info("hci", "waiting for \(spec): \(error)")
                } else {
                    Log.error("hci", "cannot open \(spec): \(error); retrying")
                }
                lastOpenError = error.description
            }
            reopenAt = reopen.next(after: now, stillComing: stillComing)
        }
    }

    /// A user channel's controller that the kernel has not registered yet
    /// (ENODEV) or is still setting up (EBUSY), or a UART's just attached
    /// (EBUSY, its tty held): see `HCIReopenSchedule`.
    private func controllerStillComing(_ error: SystemError) -> Bool {
        switch spec {
        case .userChannel: return error.code == ENODEV || error.code == EBUSY
        case .uart: return uart != nil && error.code == EBUSY
        case .tcp: return false
        }
    }

    private func closeTransport(notify: Bool) {
        guard let t = transport else { return }
        t.close()
        transport = nil
        outgoing.removeAll()
        crashLinks = []
        armFarewell()
        guard notify else { return }
        // What was read before the end goes first.
        if !receivedTaken && !received.isEmpty { events.append(.received(received)) }
        receivedTaken = true
        events.append(.closed)
    }

    private func transportFailed(_ why: String, now: Instant) {
        Log.error("hci", "transport \(spec) lost: \(why); reopening")
        closeTransport(notify: true)
        reopenAt = reopen.next(after: now, stillComing: false)
    }

    // MARK: - I/O

    /// Queues what is there to read. A user-channel socket gives one packet per read.
    private func drain(_ t: HCITransport, now: Instant) {
        if receivedTaken {
            received.removeAll(keepingCapacity: true)
            receivedTaken = false
        }
        for _ in 0..<64 {
            do {
                guard let count = try FileDescriptor.read(t.fd, into: readBuffer) else { break }
                if count == 0 {
                    transportFailed("end of stream", now: now)
                    return
                }
                received.append(contentsOf: UnsafeRawBufferPointer(rebasing: readBuffer[..<count]))
                // A stream (TCP, UART) that gave less than asked for is
                // drained: poll(2) reports it again when more arrives,
                // so the read that would only say EAGAIN is saved.
                if !t.isPacketOriented && count < HCIDriver.readSize { break }
            } catch {
                transportFailed(error.description, now: now)
                return
            }
        }
    }

    private func writePending(now: Instant) {
        // Once per wake-up, mostly with nothing queued: then nothing the
        // farewell depends on changed since it was last armed (`send`
        // only queues; writing, `endOnCrash` and closing re-arm it; a
        // transport opened again has no links until `endOnCrash` names them).
        guard let t = transport, !outgoing.isEmpty else { return }
        while !outgoing.isEmpty {
            do {
                let n = try FileDescriptor.write(t.fd, outgoing.nextWrite)
                if n == 0 { break }
                outgoing.written(n)
            } catch {
                transportFailed(error.description, now: now)
                return
            }
        }
        armFarewell()
    }
}
