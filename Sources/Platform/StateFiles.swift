import BluetoothCore
import CLinux

/// Small files under `--state DIR` that must survive a power cut: each
/// write goes to a temporary file, is fsynced, renamed over the old one and
/// the directory fsynced, so a reader finds either the old or the new
/// content, never a mix or nothing. Files are mode 0600: they hold keys.
public final class StateFiles: StateStorage {
    public let directory: String
    /// Every failed write or removal, shared by all copies of this value.
    public let failures = StateWriteFailures()

    public init(directory: String) {
        self.directory = directory
    }

    public func path(_ name: String) -> String { directory + "/" + name }

    /// Creates the directory (mode 0700) if it does not exist.
    public func prepare() throws(SystemError) {
        if mkdir(directory, 0o700) != 0 && nn_errno() != EEXIST {
            throw SystemError("create state directory \(directory)")
        }
    }

    public func read(_ name: String) -> [UInt8]? { read(name, limit: 64 * 1024) }

    public func read(_ name: String, limit: Int) -> [UInt8]? {
        let fd = nn_open(path(name), O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { return nil }
        defer { FileDescriptor.close(fd) }
        var bytes: [UInt8] = []
        while bytes.count <= limit {
            guard let chunk = try? FileDescriptor.read(fd, max: 4096) else { return nil }
            if chunk.isEmpty { return bytes }
            bytes.append(contentsOf: chunk)
        }
        Log.warning("state", "\(path(name)) is larger than \(limit) bytes; ignored")
        return nil
    }

    /// Replaces `name` with `bytes`, or throws and leaves the old file as it was.
    public func write(_ name: String, _ bytes: [UInt8]) throws(SystemError) {
        do {
            try replace(name, bytes)
            failures.succeeded()
        } catch {
            failures.failed(error)
            throw error
        }
    }

    private func replace(_ name: String, _ bytes: [UInt8]) throws(SystemError) {
        let final = path(name)
        let temporary = final + ".tmp"
        let fd = nn_open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError("create \(temporary)") }
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { CLinux.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if nn_errno() == EINTR { continue }
                let error = SystemError("write \(temporary)")
                FileDescriptor.close(fd)
                _ = unlink(temporary)
                throw error
            }
            offset += n
        }
        if fsync(fd) != 0 {
            let error = SystemError("fsync \(temporary)")
            FileDescriptor.close(fd)
            _ = unlink(temporary)
            throw error
        }
        FileDescriptor.close(fd)
        guard rename(temporary, final) == 0 else {
            let error = SystemError("rename \(temporary)")
            _ = unlink(temporary)
            throw error
        }
        syncDirectory()
    }

    public func remove(_ name: String) throws(SystemError) {
        if unlink(path(name)) != 0 && nn_errno() != ENOENT {
            let error = SystemError("remove \(path(name))")
            failures.failed(error)
            throw error
        }
        syncDirectory()
        failures.succeeded()
    }

    /// Names of the files in the directory (temporary files left by a power
    /// cut in the middle of a write are not listed).
    public func list() -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw -> String in
                let bytes = raw.prefix { $0 != 0 }
                return String(decoding: bytes, as: UTF8.self)
            }
            if name == "." || name == ".." || name.hasSuffix(".tmp") { continue }
            names.append(name)
        }
        return names.sorted()
    }

    private func syncDirectory() {
        let fd = nn_open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        FileDescriptor.close(fd)
    }
}

/// The record of state writes that failed (a full disk, a read-only or
/// vanished data partition): the firmware keeps running on what it holds in
/// memory and says so on the console and in the event log.
public final class StateWriteFailures {
    public private(set) var count = 0
    public private(set) var last: SystemError?
    /// True while the latest write failed (a later success clears it).
    public private(set) var failing = false
    /// Called with each failure as it happens.
    public var onFailure: ((SystemError) -> Void)?

    public init() {}

    func failed(_ error: SystemError) {
        count += 1
        last = error
        failing = true
        onFailure?(error)
    }

    func succeeded() { failing = false }
}

/// Random bytes from the kernel, for names and keys that must differ per device.
public enum SystemRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let n = out[filled...].withUnsafeMutableBytes { getrandom($0.baseAddress, $0.count, 0) }
            if n <= 0 { continue }
            filled += n
        }
        return out
    }
}
