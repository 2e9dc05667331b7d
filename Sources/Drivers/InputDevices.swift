import BluetoothCore
import CLinux
import Input
import Platform

/// Every useful evdev device under /dev/input (touchscreens, keyboards,
/// steering-wheel adapters), opened without blocking and read from the
/// event loop; devices plugged in or out later are noticed through inotify.
/// Bytes go to an `InputInterpreter` per device; its actions come out of
/// `onAction`.
///
///     let input = InputDevices(loop: loop, settings: config.input, panelWidth: 800, panelHeight: 480)
///     input.onAction = { action in ... }
///     input.start()
///
/// Devices with neither a touchscreen nor a key the head unit uses are
/// closed again at once (power buttons, HDMI-CEC, sound jacks).
public final class InputDevices {
    /// What probing an opened descriptor found; the platform's ioctls by
    /// default, replaceable so tests can run on FIFOs.
    public typealias Probe = (Int32) -> InputCapabilities?

    public let directory: String
    public var onAction: ((InputAction) -> Void)?
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
        var watch: EventLoop.WatchID?

        init(path: String, fd: Int32, interpreter: InputInterpreter) {
            self.path = path
            self.fd = fd
            self.interpreter = interpreter
        }
    }

    private let loop: EventLoop
    private let probe: Probe
    private var devices: [String: Device] = [:]
    private var inotifyFD: Int32 = -1
    private var inotifyWatch: EventLoop.WatchID?
    private var retryTimer: EventLoop.TimerID?
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

    public init(loop: EventLoop, settings: InputSettings = InputSettings(), panelWidth: Int, panelHeight: Int,
                directory: String = "/dev/input", probe: @escaping Probe = EvdevProbe.capabilities) {
        self.loop = loop
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

    public func start() {
        guard !started else { return }
        started = true
        watchDirectory()
    }

    public func stop() {
        started = false
        closeDevicesAndWatches()
        if let t = retryTimer { loop.cancel(t) }
        retryTimer = nil
        pending.removeAll()
    }

    /// Every open device and the inotify watches on the folder and its parent.
    private func closeDevicesAndWatches() {
        for path in Array(devices.keys) { close(path) }
        if let w = inotifyWatch { loop.unwatch(w) }
        inotifyWatch = nil
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
    public func apply(_ settings: InputSettings) {
        self.settings = settings
        let paths = Array(devices.keys)
        for path in paths { close(path) }
        for path in paths { open(path) }
    }

    // MARK: - The directory

    private func watchDirectory() {
        guard started else { return }
        if inotifyFD < 0 {
            inotifyFD = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
            guard inotifyFD >= 0 else {
                Log.error("input", "\(SystemError("inotify_init1")); input devices plugged in later are not noticed")
                scan()
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
                if inotifyWatch == nil {
                    inotifyWatch = loop.watch(inotifyFD) { [unowned(unsafe) self] _ in self.directoryChanged() }
                }
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
            loop.reschedule(&retryTimer, at: Clock.now().adding(milliseconds: directoryRetryMilliseconds)) {
                [unowned(unsafe) self] in
                self.retryTimer = nil
                self.watchDirectory()
            }
            return
        }
        if inotifyWatch == nil {
            inotifyWatch = loop.watch(inotifyFD) { [unowned(unsafe) self] _ in self.directoryChanged() }
        }
        // Watch first, then list: a device that appears in between is seen twice, never missed.
        scan()
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

    private func scan() {
        guard let dir = opendir(directory) else { return }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if InputDevices.isEventNode(name) { names.append(name) }
        }
        for name in names.sorted() where devices[path(name)] == nil { open(path(name)) }
    }

    private func directoryChanged() {
        while true {
            let chunk: [UInt8]?
            do { chunk = try FileDescriptor.read(inotifyFD, max: 4096) } catch {
                Log.error("input", "\(error); hot-plug stopped")
                if let w = inotifyWatch { loop.unwatch(w) }
                inotifyWatch = nil
                return
            }
            guard let bytes = chunk, !bytes.isEmpty else { return }
            for record in InotifyRecord.parse(bytes) {
                // After a restart the rest of this batch is about the old watch.
                if !changed(record) { return }
            }
        }
    }

    /// False when the watch was set up again.
    private func changed(_ record: InotifyRecord) -> Bool {
        if record.mask & UInt32(IN_Q_OVERFLOW) != 0 {
            // Events were lost: look at what is there now.
            Log.info("input", "inotify queue overflowed; rescanning \(directory)")
            scan()
            return true
        }
        if let wd = parentWatch, record.watch == wd {
            guard record.name == directoryName, record.mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 else { return true }
            Log.info("input", "\(directory) appeared")
            watchDirectory()
            return false
        }
        if record.watch == retiredParentWatch { return true }
        if record.mask & UInt32(IN_DELETE_SELF | IN_IGNORED) != 0 {
            // The directory went away (devtmpfs remounted): start over.
            Log.warning("input", "\(directory) disappeared; watching for it again")
            closeDevicesAndWatches()
            watchDirectory()
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
            open(p)
        } else if record.mask & UInt32(IN_ATTRIB) != 0, pending[p] != nil {
            // udev has set the permissions we were waiting for.
            open(p)
        }
        return true
    }

    // MARK: - Devices

    private func open(_ path: String) {
        let fd = nn_open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0)
        guard fd >= 0 else {
            let error = SystemError("open \(path)")
            if error.code == EACCES || error.code == EPERM {
                retryLater(path, because: error)
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
        device.watch = loop.watch(fd) { [unowned(unsafe) self] readiness in self.readable(path, readiness) }
        if let axes = caps.touchscreen {
            Log.info("input", "\(path): touchscreen \(caps.name), x \(axes.x), y \(axes.y)\(axes.multitouch ? ", multitouch" : "")")
        } else {
            Log.info("input", "\(path): keys \(caps.name)")
        }
    }

    private func retryLater(_ path: String, because error: SystemError) {
        let left = (pending[path] ?? InputDevices.attempts) - 1
        guard left > 0 else {
            pending[path] = nil
            Log.warning("input", "\(error); giving up on it (is the head unit in the input group?)")
            return
        }
        pending[path] = left
        loop.schedule(at: Clock.now().adding(milliseconds: InputDevices.retryMilliseconds)) { [unowned(unsafe) self] in
            if self.started, self.pending[path] != nil, self.devices[path] == nil { self.open(path) }
        }
    }

    private func readable(_ path: String, _ readiness: EventLoop.Readiness) {
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
            let actions = device.interpreter.receive(bytes)
            for action in actions {
                Log.debug("input", "\(path): \(action)")
                onAction?(action)
            }
            // The handler may have stopped or reconfigured us.
            guard devices[path] === device else { return }
        }
    }

    private func close(_ path: String) {
        guard let device = devices.removeValue(forKey: path) else { return }
        if let w = device.watch { loop.unwatch(w) }
        FileDescriptor.close(device.fd)
    }

    private func path(_ name: String) -> String { directory + "/" + name }

    /// `eventN`: the evdev nodes (not `mouseN`, `jsN`, `by-id/`).
    static func isEventNode(_ name: String) -> Bool {
        name.hasPrefix("event") && name.count > 5 && name.dropFirst(5).allSatisfy { $0.isASCII && $0.isNumber }
    }
}
