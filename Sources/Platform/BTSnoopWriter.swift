import BluetoothCore
import CLinux
import HCI

/// Appends every HCI packet to a btsnoop file. Each record goes to the
/// kernel with one write, so the file is readable up to the last packet
/// even if the firmware is killed.
public final class BTSnoopWriter {
    private var fd: Int32
    public let path: String
    public private(set) var records = 0

    public init(path: String) throws(SystemError) {
        self.path = path
        fd = nn_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemError("open trace \(path)") }
        try writeAll(BTSnoop.fileHeader)
    }

    deinit { close() }

    public func record(_ packet: HCIPacket, direction: TraceDirection) {
        guard fd >= 0 else { return }
        do {
            try writeAll(BTSnoop.record(packet, direction: direction, unixMicroseconds: Clock.unixMicroseconds()))
            records += 1
        } catch {
            Log.error("trace", "\(error); tracing stopped")
            close()
        }
    }

    public func close() {
        FileDescriptor.close(fd)
        fd = -1
    }

    private func writeAll(_ bytes: [UInt8]) throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { CLinux.write(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if nn_errno() == EINTR { continue }
                throw SystemError("write trace \(path)")
            }
            offset += n
        }
    }
}
