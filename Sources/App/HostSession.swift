import BluetoothCore
import Drivers
import HCI
import Platform

/// A host on one transport in an event loop, with an optional btsnoop
/// trace: what every command that talks to a controller starts with. The
/// session drives the host as the head unit drives its core: transport
/// events in, the host's timeout when due, its packets out after each wait.
final class HostSession {
    let loop: EventLoop
    let driver: HCIDriver
    let host = Host()

    init(spec: TransportSpec, tracePath: String?, traceKeys: Bool) throws(SystemError) {
        loop = try EventLoop()
        driver = HCIDriver(spec: spec)
        if let path = tracePath {
            let writer = try BTSnoopWriter(path: path, redaction: traceKeys ? nil : TraceRedaction())
            host.packetObserver = { packet, direction in writer.record(packet, direction: direction) }
        }
    }

    /// Opens the transport (the host starts when it is open).
    func start() {
        driver.start(now: loop.now())
    }

    /// Runs until `condition` fails, a termination signal arrives or
    /// `deadline` passes; `handle` gets each host event. `wake` (if any) is
    /// one more deadline for the caller's own timing, and `due` runs after
    /// every wait, before the host's packets go out.
    func run(until deadline: Instant, wake: () -> Instant? = { nil }, due: (Instant) -> Void = { _ in },
             while condition: () -> Bool, handle: (HostEvent, Instant) -> Void) {
        var set = PollSet()
        var devices = LoopDevices([driver])
        var now = loop.now()
        carryOut(now: now, handle)
        while condition() && now < deadline {
            let drivers = devices.fill(&set)
            let until = earliest(earliest(earliest(deadline, host.nextDeadline), drivers), wake())
            guard loop.wait(&set, until: until) == .ready else { return }
            now = loop.now()
            devices.dispatch(&set, now: now)
            if let at = host.nextDeadline, at <= now { host.handleTimeout(now: now) }
            due(now)
            carryOut(now: now, handle)
        }
    }

    /// What the transport read to the host, the host's events to `handle`,
    /// its packets to the transport.
    func carryOut(now: Instant, _ handle: (HostEvent, Instant) -> Void) {
        while let event = driver.pollEvent() {
            switch event {
            case .opened: host.start(now: now)
            case .received(let bytes): host.receive(bytes, now: now)
            case .closed: host.transportClosed(now: now)
            }
        }
        // What `handle` does to the host may raise events of its own.
        var progressed = true
        while progressed {
            progressed = false
            while let event = host.pollEvent() {
                handle(event, now)
                progressed = true
            }
        }
        while let packet = host.pollTransmit(now: now) { driver.send(packet) }
        driver.flush(now: now)
    }

    /// Lets queued commands go out and their answers come back (up to 1 s).
    func settle() {
        let host = self.host
        run(until: loop.now().adding(milliseconds: 1000), while: { host.hasCommandsOutstanding }, handle: { _, _ in })
    }
}
