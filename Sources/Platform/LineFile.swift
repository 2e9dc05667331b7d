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

    public func write(_ line: String) {
        write(utf8: Array(line.utf8))
    }

    /// Writes `line` (UTF-8, without its line break) and a line break, in
    /// one write(2) so a reader never sees half a line.
    public func write(utf8 line: [UInt8]) {
        guard fd >= 0 else { return }
        var bytes = line
        bytes.append(0x0A)
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { CLinux.write(fd, $0.baseAddress, $0.count) }
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
