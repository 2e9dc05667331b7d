import BluetoothCore
import CLinux
import Input
import Platform

/// Every useful evdev device under /dev/input (touchscreens, keyboards,
/// steering-wheel adapters), opened without blocking and read when the
/// event loop finds them ready (a `LoopDevice`); devices plugged in or out
/// later are noticed through inotify. Bytes go to an `InputInterpreter` per
/// device; its actions wait in `pollAction`.
///
///     let input = InputDevices(settings: config.input, panelWidth: 800, panelHeight: 480)
///     input.start(now: now)
///     ... after each wait: while let action = input.pollAction() { ... }
///
/// Devices with neither a touchscreen nor a key the head unit uses are
/// closed again at once (power buttons, HDMI-CEC, sound jacks).
public final class InputDevices: LoopDevice {
    /// What probing an opened descriptor found; the platform's ioctls by
    /// default, replaceable so tests can run on FIFOs.
    public typealias Probe = (Int32) -> InputCapabilities?

    public let directory: String
    public private(set) var settings: InputSettings
    public private(set) var panelWidth: Int
    public private(set) var panelHeight: Int
    /// While the directory is missing (no input device since boot) its
    /// parent is watched for it to appear; only when that watch cannot be
    /// set up is the directory looked for again this often.
    public var directoryRetryMilliseconds: Int64 = 5000

    private final class Device {
        let path: String
        let fd: Int32
        var interpreter: InputInterpreter

        init(path: String, fd: Int32, interpreter: InputInterpreter) {
            self.path = path
            self.fd = fd
            self.interpreter = interpreter
        }
    }

    private let probe: Probe
    private var devices: [String: Device] = [:]
    private var inotifyFD: Int32 = -1
    /// The inotify descriptor is polled.
    private var watchingInotify = false
    /// When to look for the directory again.
    private var retryAt: Instant?
    /// Nodes to open again (udev still setting permissions), and when.
    private var reopenAt: [String: Instant] = [:]
    private var actions = FIFO<InputAction>()
    /// The watch on the parent folder while the directory does not exist:
    /// its creation is an inotify event, so nothing polls for it.
    private var parentWatch: Int32?
    /// A parent watch given up, whose IN_IGNORED is still to come.
    private var retiredParentWatch: Int32?
    /// Nodes that could not be opened yet (udev still setting permissions),
    /// with the attempts left.
    private var pending: [String: Int] = [:]
    private var started = false

    static let retryMilliseconds: Int64 = 500
    static let attempts = 10
    static let readSize = EvdevDecoder.eventSize * 64

    public init(settings: InputSettings = InputSettings(), panelWidth: Int, panelHeight: Int,
                directory: String = "/dev/input", probe: @escaping Probe = EvdevProbe.capabilities) {
        self.settings = settings
        self.panelWidth = panelWidth
        self.panelHeight = panelHeight
        self.directory = directory
        self.probe = probe
    }

    deinit { stop() }

    /// The devices in use: path and what they are.
    public var openDevices: [(path: String, capabilities: InputCapabilities)] {
        devices.values.sorted { $0.path < $1.path }.map { ($0.path, $0.interpreter.capabilities) }
    }

    public func start(now: Instant) {
        guard !started else { return }
        started = true
        watchDirectory(now: now)
    }

    public func stop() {
        started = false
        closeDevicesAndWatches()
        retryAt = nil
        reopenAt.removeAll()
        pending.removeAll()
    }

    /// What the devices' input meant, in order.
    public func pollAction() -> InputAction? { actions.popFirst() }

    // MARK: - LoopDevice

    public func addDescriptors(to set: inout PollSet) {
        if watchingInotify { set.add(inotifyFD) }
        // Asked before every wait: most head units have no input device
        // open, and iterating an empty dictionary still sets up its walk.
        if !devices.isEmpty { for device in devices.values { set.add(device.fd) } }
    }

    public func handle(_ readiness: Readiness, on fd: Int32, now: Instant) {
        if watchingInotify && fd == inotifyFD {
            directoryChanged(now: now)
        } else if let device = devices.values.first(where: { $0.fd == fd }) {
            readable(device.path, readiness)
        }
    }

    public var nextDeadline: Instant? {
        var next = retryAt
        // Asked before every wait, mostly with no device to reopen (see above).
        if !reopenAt.isEmpty { for at in reopenAt.values { next = earliest(next, at) } }
        return next
    }

    public func handleTimeout(now: Instant) {
        if let at = retryAt, at <= now {
            retryAt = nil
            watchDirectory(now: now)
        }
        for (path, at) in reopenAt where at <= now {
            reopenAt[path] = nil
            if started, pending[path] != nil, devices[path] == nil { open(path, now: now) }
        }
    }

    /// Every open device and the inotify watches on the folder and its parent.
    private func closeDevicesAndWatches() {
        for path in Array(devices.keys) { close(path) }
        watchingInotify = false
        FileDescriptor.close(inotifyFD)
        inotifyFD = -1
        parentWatch = nil
        retiredParentWatch = nil
    }

    /// The display came up (or turned): taps are scaled to this panel.
    public func setPanelSize(width: Int, height: Int) {
        panelWidth = width
        panelHeight = height
        for d in devices.values { d.interpreter.setPanelSize(width: width, height: height) }
    }

    /// New settings (confirm key, calibration) for every device, reopened.
    public func apply(_ settings: InputSettings, now: Instant) {
        self.settings = settings
        let paths = Array(devices.keys)
        for path in paths { close(path) }
        for path in paths { open(path, now: now) }
    }

    // MARK: - The directory

    private func watchDirectory(now: Instant) {
        guard started else { return }
        if inotifyFD < 0 {
            inotifyFD = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard inotifyFD >= 0 else {
                Log.error("input", "\(SystemError("inotify_init1")); input devices plugged in later are not noticed")
                scan(now: now)
                return
            }
        }
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF)
        var failure: SystemError? = inotify_add_watch(inotifyFD, directory, mask) < 0 ? SystemError("watch \(directory)") : nil
        if let error = failure, error.code == ENOENT, watchParent() {
            // Watch the parent for the directory to appear, then look once
            // more: a directory made in between is not missed.
            failure = inotify_add_watch(inotifyFD, directory, mask) < 0 ? SystemError("watch \(directory)") : nil
            if failure != nil {
                Log.info("input", "\(directory) does not exist (yet); waiting for it to appear")
                watchingInotify = true
                return
            }
        }
        stopWatchingParent()
        if let error = failure {
            if error.code == ENOENT {
                Log.info("input", "\(directory) does not exist (yet); looking again every \(directoryRetryMilliseconds / 1000) s")
            } else {
                Log.error("input", "\(error); looking again every \(directoryRetryMilliseconds / 1000) s")
            }
            retryAt = now.adding(milliseconds: directoryRetryMilliseconds)
            return
        }
        watchingInotify = true
        // Watch first, then list: a device that appears in between is seen twice, never missed.
        scan(now: now)
    }

    private func watchParent() -> Bool {
        if parentWatch != nil { return true }
        let parent = directory.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let wd = inotify_add_watch(inotifyFD, parent.isEmpty ? (directory.hasPrefix("/") ? "/" : ".") : parent,
                                   UInt32(IN_CREATE | IN_MOVED_TO))
        guard wd >= 0 else { return false }
        parentWatch = wd
        return true
    }

    private func stopWatchingParent() {
        guard let wd = parentWatch else { return }
        inotify_rm_watch(inotifyFD, wd)
        parentWatch = nil
        retiredParentWatch = wd
    }

    private var directoryName: String {
        String(directory.split(separator: "/", omittingEmptySubsequences: false).last ?? "")
    }

    private func scan(now: Instant) {
        guard let dir = opendir(directory) else { return }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if InputDevices.isEventNode(name) { names.append(name) }
        }
        for name in names.sorted() where devices[path(name)] == nil { open(path(name), now: now) }
    }

    private func directoryChanged(now: Instant) {
        while true {
            let chunk: [UInt8]?
            do { chunk = try FileDescriptor.read(inotifyFD, max: 4096) } catch {
                Log.error("input", "\(error); hot-plug stopped")
                watchingInotify = false
                return
            }
            guard let bytes = chunk, !bytes.isEmpty else { return }
            for record in InotifyRecord.parse(bytes) {
                // After a restart the rest of this batch is about the old watch.
                if !changed(record, now: now) { return }
            }
        }
    }

    /// False when the watch was set up again.
    private func changed(_ record: InotifyRecord, now: Instant) -> Bool {
        if record.mask & UInt32(IN_Q_OVERFLOW) != 0 {
            // Events were lost: look at what is there now.
            Log.info("input", "inotify queue overflowed; rescanning \(directory)")
            scan(now: now)
            return true
        }
        if let wd = parentWatch, record.watch == wd {
            guard record.name == directoryName, record.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 else { return true }
            Log.info("input", "\(directory) appeared")
            watchDirectory(now: now)
            return false
        }
        if record.watch == retiredParentWatch { return true }
        if record.mask & UInt32(IN_DELETE_SELF | IN_IGNORED) != 0 {
            // The directory went away (devtmpfs remounted): start over.
            Log.warning("input", "\(directory) disappeared; watching for it again")
            closeDevicesAndWatches()
            watchDirectory(now: now)
            return false
        }
        guard InputDevices.isEventNode(record.name) else { return true }
        let p = path(record.name)
        if record.mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
            pending[p] = nil
            if devices[p] != nil {
                Log.info("input", "\(p) removed")
                close(p)
            }
        } else if record.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
            // A node made again under a known name is a new device.
            if devices[p] != nil { close(p) }
            open(p, now: now)
        } else if record.mask & UInt32(IN_ATTRIB) != 0, pending[p] != nil {
            // udev has set the permissions we were waiting for.
            open(p, now: now)
        }
        return true
    }

    // MARK: - Devices

    private func open(_ path: String, now: Instant) {
        let fd = nn_open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0)
        guard fd >= 0 else {
            let error = SystemError("open \(path)")
            if error.code == EACCES || error.code == EPERM {
                retryLater(path, because: error, now: now)
            } else if error.code != ENOENT && error.code != ENODEV {
                Log.warning("input", "\(error)")
            }
            return
        }
        pending[path] = nil
        guard let caps = probe(fd) else {
            Log.debug("input", "\(path) is no evdev device; ignored")
            FileDescriptor.close(fd)
            return
        }
        guard caps.isUseful(confirmKey: settings.confirmKey) else {
            Log.debug("input", "\(path) (\(caps.name)) has no touchscreen and no media or confirm key; ignored")
            FileDescriptor.close(fd)
            return
        }
        EvdevProbe.useMonotonicClock(fd)
        let interpreter = InputInterpreter(capabilities: caps, settings: settings, panelWidth: panelWidth, panelHeight: panelHeight)
        let device = Device(path: path, fd: fd, interpreter: interpreter)
        devices[path] = device
        if let axes = caps.touchscreen {
            Log.info("input", "\(path): touchscreen \(caps.name), x \(axes.x), y \(axes.y)\(axes.multitouch ? ", multitouch" : "")")
        } else {
            Log.info("input", "\(path): keys \(caps.name)")
        }
    }

    private func retryLater(_ path: String, because error: SystemError, now: Instant) {
        let left = (pending[path] ?? InputDevices.attempts) - 1
        guard left > 0 else {
            pending[path] = nil
            Log.warning("input", "\(error); giving up on it (is the head unit in the input group?)")
            return
        }
        pending[path] = left
        reopenAt[path] = now.adding(milliseconds: InputDevices.retryMilliseconds)
    }

    private func readable(_ path: String, _ readiness: Readiness) {
        guard let device = devices[path] else { return }
        while true {
            let chunk: [UInt8]?
            do { chunk = try FileDescriptor.read(device.fd, max: InputDevices.readSize) } catch {
                // ENODEV: unplugged. The inotify deletion follows; nothing to wait for.
                if error.code == ENODEV { Log.info("input", "\(path) unplugged") } else { Log.warning("input", "\(path): \(error)") }
                close(path)
                return
            }
            guard let bytes = chunk else {
                if readiness.failed && !readiness.readable { close(path) }
                return
            }
            if bytes.isEmpty {
                close(path)
                return
            }
            for action in device.interpreter.receive(bytes) {
                Log.debug("input", "\(path): \(action)")
                actions.append(action)
            }
        }
    }

    private func close(_ path: String) {
        guard let device = devices.removeValue(forKey: path) else { return }
        FileDescriptor.close(device.fd)
    }

    private func path(_ name: String) -> String { directory + "/" + name }

    /// `eventN`: the evdev nodes (not `mouseN`, `jsN`, `by-id/`).
    static func isEventNode(_ name: String) -> Bool {
        name.hasPrefix("event") && name.count > 5 && name.dropFirst(5).allSatisfy { $0.isASCII && $0.isNumber }
    }
}
