import BluetoothCore
import CLinux

/// An append-only text file written a line at a time, each line with one
/// write(2) so readers following the file never see half a line.
public final class LineFile {
    private var fd: Int32
    public let path: String

    public init(path: String) throws(SystemError) {
        self.path = path
        // The event log carries the text of the notifications shown: for the
        // head unit's owner alone, like the state files and traces.
        fd = path == "-" ? 1 : nn_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, FileDescriptor.ownerOnlyMode)
        guard fd >= 0 else { throw SystemError("open \(path)") }
        if fd > 2, !FileDescriptor.restrictToOwner(fd) {
            let error = SystemError("chmod \(path)")
            FileDescriptor.close(fd)
            throw error
        }
    }

    deinit { if fd > 2 { FileDescriptor.close(fd) } }

    /// Writes `line` and a line break in one write(2), so a reader never
    /// sees half a line.
    public func write(_ line: String) {
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        bytes.withUnsafeBufferPointer { write(lines: $0) }
    }

    /// Writes whole lines (UTF-8, each with its line break) as they are, in
    /// one write(2) unless the file takes only part of them.
    public func write(lines bytes: UnsafeBufferPointer<UInt8>) {
        guard fd >= 0, let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let n = CLinux.write(fd, base + offset, bytes.count - offset)
            if n < 0 {
                if nn_errno() == EINTR { continue }
                Log.error("events", "\(SystemError("write \(path)")); event log stopped")
                if fd > 2 { FileDescriptor.close(fd) }
                fd = -1
                return
            }
            offset += n
        }
    }
}
