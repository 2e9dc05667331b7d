import BluetoothCore
import CLinux

/// The firmware's one thread of control: a poll(2) loop over file
/// descriptors and monotonic timers. Nothing blocks and nothing spins: when
/// no descriptor is ready and no timer is due, the process sleeps in poll
/// until the earliest timer, or indefinitely when there is none.
/// SIGINT and SIGTERM arrive through a signalfd and stop the loop cleanly.
public final class EventLoop {
    public struct WatchID: Hashable { let value: Int }
    public struct TimerID: Hashable { let value: Int }

    public struct Readiness {
        public let revents: Int16
        public var readable: Bool { revents & Int16(POLLIN) != 0 }
        public var writable: Bool { revents & Int16(POLLOUT) != 0 }
        /// Error or hang-up: the descriptor will not recover by itself.
        public var failed: Bool { revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 }
    }

    private struct Watch {
        var id: Int
        var fd: Int32
        var wantWrite: Bool
        var handler: (Readiness) -> Void
    }

    private struct Timer {
        var id: Int
        var deadline: Instant
        var handler: () -> Void
    }

    // Plain arrays searched from the front: the head unit has a handful of
    // descriptors and timers, and a dictionary's hashing cost more than the
    // search on every wake-up.
    private var watches: [Watch] = []
    private var timers: [Timer] = []
    private var nextID = 1
    private var running = false
    private var signalFD: Int32 = -1
    private var pollFDs: [pollfd] = []
    private var pollIDs: [Int] = []

    /// Called when SIGINT or SIGTERM arrives; the default stops the loop.
    public var onTerminationSignal: (() -> Void)?
    /// Loop iterations that returned from poll: idle wake-up accounting.
    public private(set) var wakeups = 0

    public init() throws(SystemError) {
        nn_ignore_sigpipe()
        signalFD = nn_termination_signalfd()
        guard signalFD >= 0 else { throw SystemError("signalfd") }
        _ = watch(signalFD) { [unowned(unsafe) self] _ in
            var info = signalfd_siginfo()
            _ = withUnsafeMutableBytes(of: &info) { CLinux.read(self.signalFD, $0.baseAddress, $0.count) }
            Log.info("loop", "signal \(info.ssi_signo) received; shutting down")
            if let handler = self.onTerminationSignal { handler() } else { self.stop() }
        }
    }

    deinit { FileDescriptor.close(signalFD) }

    // MARK: - Descriptors

    @discardableResult
    public func watch(_ fd: Int32, writable: Bool = false, handler: @escaping (Readiness) -> Void) -> WatchID {
        let id = nextID
        nextID += 1
        watches.append(Watch(id: id, fd: fd, wantWrite: writable, handler: handler))
        return WatchID(value: id)
    }

    /// Asks for (or stops asking for) POLLOUT: only while output is pending,
    /// or poll would return at once every time.
    public func setWantsWrite(_ id: WatchID, _ wants: Bool) {
        guard let i = watches.firstIndex(where: { $0.id == id.value }), watches[i].wantWrite != wants else { return }
        watches[i].wantWrite = wants
    }

    public func unwatch(_ id: WatchID) { watches.removeAll { $0.id == id.value } }

    // MARK: - Timers

    @discardableResult
    public func schedule(at deadline: Instant, handler: @escaping () -> Void) -> TimerID {
        let id = nextID
        nextID += 1
        timers.append(Timer(id: id, deadline: deadline, handler: handler))
        return TimerID(value: id)
    }

    public func cancel(_ id: TimerID) { timers.removeAll { $0.id == id.value } }

    /// Moves an existing timer, or creates one when `id` is nil or gone.
    /// A timer already due at `deadline` stays as it is: the layers' earliest
    /// deadline is recomputed after every input and mostly has not moved.
    public func reschedule(_ id: inout TimerID?, at deadline: Instant?, handler: @escaping () -> Void) {
        guard let existing = id, let i = timers.firstIndex(where: { $0.id == existing.value }) else {
            id = deadline.map { schedule(at: $0, handler: handler) }
            return
        }
        guard let deadline else {
            timers.remove(at: i)
            id = nil
            return
        }
        if timers[i].deadline == deadline { return }
        // Moved in place, under a new id: like a new timer, it does not run
        // in the turn that is running due timers now.
        let newID = nextID
        nextID += 1
        timers[i] = Timer(id: newID, deadline: deadline, handler: handler)
        id = TimerID(value: newID)
    }

    // MARK: - Running

    public func stop() { running = false }

    public var isRunning: Bool { running }

    /// Runs until `stop()` or a termination signal.
    public func run() {
        running = true
        while running { turn() }
    }

    /// Runs the loop until `condition` no longer holds, `stop()` is called
    /// or `deadline` passes; for one-shot commands and tests.
    public func run(until deadline: Instant, while condition: () -> Bool) {
        let guardTimer = schedule(at: deadline) { [unowned(unsafe) self] in self.stop() }
        running = true
        while running && condition() && Clock.now() < deadline { turn() }
        cancel(guardTimer)
    }

    /// One poll(2) and the handlers and timers it made due.
    private func turn() {
        pollFDs.removeAll(keepingCapacity: true)
        pollIDs.removeAll(keepingCapacity: true)
        for w in watches {
            var events = Int16(POLLIN)
            if w.wantWrite { events |= Int16(POLLOUT) }
            pollFDs.append(pollfd(fd: w.fd, events: events, revents: 0))
            pollIDs.append(w.id)
        }
        let timeout = pollTimeout()
        let n = pollFDs.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), timeout) }
        wakeups += 1
        if n < 0 {
            let error = SystemError("poll")
            if !error.isInterrupted {
                Log.error("loop", "\(error)")
                running = false
            }
            return
        }
        if n > 0 {
            // Walks the poll set in place instead of building a list of the
            // ready ones (an allocation on every wake-up); the bound is
            // checked on each step in case a handler ran a nested turn.
            var i = 0
            while i < pollFDs.count, i < pollIDs.count {
                let fd = pollFDs[i]
                let id = pollIDs[i]
                i += 1
                if fd.revents == 0 { continue }
                // A handler may have removed this watch (or others) already.
                guard let w = watches.first(where: { $0.id == id }), w.fd == fd.fd else { continue }
                w.handler(Readiness(revents: fd.revents))
                if !running { return }
            }
        }
        runDueTimers()
    }

    private func pollTimeout() -> Int32 {
        var earliest: Instant?
        for timer in timers where earliest.map({ timer.deadline < $0 }) ?? true { earliest = timer.deadline }
        guard let next = earliest else { return -1 }
        let wait = next.millisecondsSince(Clock.now())
        if wait <= 0 { return 0 }
        return Int32(min(wait, Int64(Int32.max)))
    }

    /// Runs the timers due now, earliest first: only those that existed
    /// when this pass began (ids below `nextID` then), so a handler that
    /// sets a timer already due has it run on the next turn, not in a loop here.
    private func runDueTimers() {
        let now = Clock.now()
        let limit = nextID
        while true {
            var next: Int?
            for i in timers.indices where timers[i].id < limit && timers[i].deadline <= now {
                if next.map({ timers[i].deadline < timers[$0].deadline }) ?? true { next = i }
            }
            guard let i = next else { return }
            let timer = timers.remove(at: i)
            timer.handler()
        }
    }
}
