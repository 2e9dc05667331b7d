import BluetoothCore
import CLinux

/// What a descriptor is ready for, as poll(2) reported it.
public struct Readiness {
    public let revents: Int16
    public init(revents: Int16) { self.revents = revents }
    public var readable: Bool { revents & Int16(POLLIN) != 0 }
    public var writable: Bool { revents & Int16(POLLOUT) != 0 }
    /// Error or hang-up: the descriptor will not recover by itself.
    public var failed: Bool { revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 }
}

/// The descriptors one wait is for, each with the device that asked for
/// it (an index the loop's owner chose), and after the wait what each is
/// ready for. Kept by the owner and refilled before every wait: the entries
/// are overwritten where they lie and only the first `count` are in use, so
/// a wake-up neither allocates nor empties and regrows its arrays.
public struct PollSet {
    private var entries: [pollfd] = []
    private var entryOwners: [Int] = []
    public private(set) var count = 0
    /// Entries ready without a descriptor (`addReady`): a wait with any
    /// returns at once. Counted as they are added, not looked for.
    private var readyAlready = 0
    /// The owner whose descriptors `add` records now.
    public var owner = 0

    public init() {}

    public var isEmpty: Bool { count == 0 }
    public var descriptors: ArraySlice<pollfd> { entries[..<count] }
    public var owners: ArraySlice<Int> { entryOwners[..<count] }

    public mutating func removeAll() {
        count = 0
        readyAlready = 0
    }

    /// Waits for `fd` to be readable, and writable too when asked.
    public mutating func add(_ fd: Int32, writable: Bool = false) {
        var events = Int16(POLLIN)
        if writable { events |= Int16(POLLOUT) }
        put(pollfd(fd: fd, events: events, revents: 0))
    }

    /// Ready already, without a descriptor (input a device holds): the wait
    /// returns at once and reports it readable, under descriptor -1.
    public mutating func addReady() {
        put(pollfd(fd: -1, events: Int16(POLLIN), revents: Int16(POLLIN)))
        readyAlready += 1
    }

    private mutating func put(_ entry: pollfd) {
        if count < entries.count {
            entries[count] = entry
            entryOwners[count] = owner
        } else {
            entries.append(entry)
            entryOwners.append(owner)
        }
        count += 1
    }

    public var hasReadyAlready: Bool { readyAlready > 0 }

    public func fd(_ i: Int) -> Int32 { entries[i].fd }
    public func readiness(_ i: Int) -> Readiness { Readiness(revents: entries[i].revents) }
    func owner(_ i: Int) -> Int { entryOwners[i] }

    /// Marks entry `i` as ready (for a waiter that does not call poll(2)).
    public mutating func setReadiness(_ i: Int, _ readiness: Readiness) {
        if entries[i].fd < 0 { readyAlready += (readiness.revents != 0 ? 1 : 0) - (entries[i].revents != 0 ? 1 : 0) }
        entries[i].revents = readiness.revents
    }

    /// Runs poll(2) on the set; pre-ready entries keep their readiness.
    mutating func poll(timeout: Int32) -> Int32 {
        let used = count
        let n = entries.withUnsafeMutableBufferPointer { CLinux.poll($0.baseAddress, nfds_t(used), timeout) }
        // poll(2) clears the revents of negative descriptors it skips.
        if readyAlready > 0 {
            for i in 0..<used where entries[i].fd < 0 { entries[i].revents = Int16(POLLIN) }
        }
        return n
    }

    /// Drops the last entry, a descriptor's (the wait's own signalfd).
    mutating func removeLast() { count -= 1 }
}

/// Something the loop's owner waits on: descriptors to poll (none while
/// closed) and a deadline of its own (a reopen back-off, a keep-alive).
/// What it reads it keeps as values for the owner to poll; nothing is
/// called back.
public protocol LoopDevice: AnyObject {
    /// Adds the descriptors to wait on now.
    func addDescriptors(to set: inout PollSet)
    /// A descriptor it added (or -1 for `addReady`) is ready.
    func handle(_ readiness: Readiness, on fd: Int32, now: Instant)
    var nextDeadline: Instant? { get }
    /// `nextDeadline` has passed.
    func handleTimeout(now: Instant)
}

/// Why a wait ended.
public enum Wake: Equatable {
    /// A descriptor is ready or the deadline passed (the set says which).
    case ready
    /// SIGINT or SIGTERM arrived.
    case terminationSignal
    /// The wait itself failed: nothing more can be waited for.
    case failed
}

/// The time: the system's clocks, or a virtual clock in tests.
public protocol TimeSource: AnyObject {
    /// Monotonic time.
    func now() -> Instant
    /// Wall-clock time since 1970 in microseconds (the status-bar clock).
    func unixMicroseconds() -> Int64
}

/// The system's clocks (`Clock`) as a `TimeSource`.
public final class SystemClock: TimeSource {
    public init() {}
    public func now() -> Instant { Clock.now() }
    public func unixMicroseconds() -> Int64 { Clock.unixMicroseconds() }
}

/// The clock and the sleep: poll(2) and the monotonic clock on Linux, a
/// virtual clock in tests. The owner of the loop reads `now` once per
/// wake-up and passes it down.
public protocol Waiting: TimeSource {    /// Sleeps until a descriptor in `set` is ready or `deadline` passes
    /// (nil: no deadline); marks in `set` what is ready.
    func wait(_ set: inout PollSet, until deadline: Instant?) -> Wake
}

/// The firmware's one thread of control: a poll(2) over the descriptors
/// its owner lists, until the owner's earliest deadline. Nothing blocks and
/// nothing spins: when no descriptor is ready and no deadline is due, the
/// process sleeps in poll until the deadline, or indefinitely when there is
/// none. SIGINT and SIGTERM arrive through a signalfd and end a wait with
/// `.terminationSignal`. The loop keeps no handlers and no timers: readiness
/// and deadlines are values its owner keeps and acts on.
public final class EventLoop: Waiting {
    private var signalFD: Int32 = -1
    /// Waits that returned from poll: idle wake-up accounting.
    public private(set) var wakeups = 0

    public init() throws(SystemError) {
        nn_ignore_sigpipe()
        signalFD = nn_termination_signalfd()
        guard signalFD >= 0 else { throw SystemError("signalfd") }
    }

    deinit { FileDescriptor.close(signalFD) }

    public func now() -> Instant { Clock.now() }
    public func unixMicroseconds() -> Int64 { Clock.unixMicroseconds() }

    public func wait(_ set: inout PollSet, until deadline: Instant?) -> Wake {
        let signalIndex = set.count
        let owner = set.owner
        set.owner = -1
        set.add(signalFD)
        defer {
            set.removeLast()
            set.owner = owner
        }
        let n = set.poll(timeout: set.hasReadyAlready ? 0 : timeout(until: deadline))
        wakeups += 1
        if n < 0 {
            let error = SystemError("poll")
            if error.isInterrupted { return .ready }
            Log.error("loop", "\(error)")
            return .failed
        }
        if set.readiness(signalIndex).readable {
            var info = signalfd_siginfo()
            _ = withUnsafeMutableBytes(of: &info) { CLinux.read(signalFD, $0.baseAddress, $0.count) }
            Log.info("loop", "signal \(info.ssi_signo) received; shutting down")
            return .terminationSignal
        }
        return .ready
    }

    private func timeout(until deadline: Instant?) -> Int32 {
        guard let deadline else { return -1 }
        let wait = deadline.millisecondsSince(Clock.now())
        if wait <= 0 { return 0 }
        return Int32(min(wait, Int64(Int32.max)))
    }

    /// Waits on `devices` and runs what is ready and due until `condition`
    /// no longer holds, a termination signal arrives or `deadline` passes:
    /// for one-shot commands and tests. Returns false on a termination signal.
    @discardableResult
    public func run(_ devices: [any LoopDevice], until deadline: Instant, while condition: () -> Bool) -> Bool {
        var set = PollSet()
        var loop = LoopDevices(devices)
        while condition() {
            let wake = earliest(loop.fill(&set), deadline)
            switch wait(&set, until: wake) {
            case .terminationSignal, .failed: return false
            case .ready: break
            }
            let now = Clock.now()
            loop.dispatch(&set, now: now)
            if now >= deadline { break }
        }
        return true
    }
}

/// The devices one loop waits on, and what a wait found handed to them.
/// Each device is asked for its deadline once per wait, while the set is
/// filled. After the wait a device handed readiness is asked again
/// (reading may have moved its deadline: a transport lost and its reopen
/// scheduled); the others only when the earliest deadline `fill` found has
/// passed, since nothing calls a device between the fill and the dispatch.
public struct LoopDevices {
    public let devices: [any LoopDevice]
    /// The earliest of the devices' deadlines as `fill` found them.
    private var earliestDue: Instant?

    public init(_ devices: [any LoopDevice]) {
        self.devices = devices
    }

    /// Empties `set` and adds every device's descriptors, each under its
    /// index as owner; returns the earliest of the devices' deadlines.
    public mutating func fill(_ set: inout PollSet) -> Instant? {
        set.removeAll()
        var due: Instant?
        for i in 0..<devices.count {
            let device = devices[i]
            set.owner = i
            device.addDescriptors(to: &set)
            due = earliest(due, device.nextDeadline)
        }
        earliestDue = due
        return due
    }

    /// Each ready descriptor to its device, then its timeout to each
    /// device whose deadline has passed. The set is borrowed in place
    /// (`inout`): passed by value, its two arrays were retained and
    /// released on every wake-up.
    public func dispatch(_ set: inout PollSet, now: Instant) {
        var askAll = earliestDue.map { $0 <= now } ?? false
        // Bit i: device i was handed readiness (past 64, every device is asked).
        var handled: UInt64 = 0
        for i in 0..<set.count {
            let readiness = set.readiness(i)
            let owner = set.owner(i)
            guard readiness.revents != 0, owner >= 0, owner < devices.count else { continue }
            devices[owner].handle(readiness, on: set.fd(i), now: now)
            if owner < 64 { handled |= 1 << UInt64(owner) } else { askAll = true }
        }
        guard askAll || handled != 0 else { return }
        for i in 0..<devices.count where askAll || handled & (1 << UInt64(i)) != 0 {
            if let at = devices[i].nextDeadline, at <= now { devices[i].handleTimeout(now: now) }
        }
    }
}
