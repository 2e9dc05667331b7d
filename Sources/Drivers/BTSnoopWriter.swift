import BluetoothCore
import CLinux
import HCI
import Platform

/// Appends every HCI packet to a btsnoop file. Each record goes to the
/// kernel with one write, so the file is readable up to the last packet
/// even if the firmware is killed.
///
/// The file is its owner's alone (0600, also when it existed before): a
/// trace holds the phone's notifications. Key material is zeroed in each
/// record (`TraceRedaction`) unless `redaction` is nil, which only an
/// explicit `--trace-keys` (console `trace on FILE keys`) asks for.
public final class BTSnoopWriter {
    private var fd: Int32
    public let path: String
    public private(set) var records = 0
    /// nil: the keys are written as they are.
    private var redaction: TraceRedaction?

    public static let mode = FileDescriptor.ownerOnlyMode

    public init(path: String, redaction: TraceRedaction?) throws(SystemError) {
        self.path = path
        self.redaction = redaction
        fd = nn_open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, BTSnoopWriter.mode)
        guard fd >= 0 else { throw SystemError("open trace \(path)") }
        if !FileDescriptor.restrictToOwner(fd) {
            let error = SystemError("chmod trace \(path)")
            close()
            throw error
        }
        if redaction == nil {
            Log.warning("trace", "\(path) keeps the link keys and NotifBridge key seeds in clear: anyone who reads it can decrypt the phone's traffic")
        }
        try writeAll(BTSnoop.fileHeader)
    }

    deinit { close() }

    public func record(_ packet: HCIPacket, direction: TraceDirection) {
        guard fd >= 0 else { return }
        var traced = packet
        if redaction != nil { traced = redaction!.redact(packet, direction: direction) }
        do {
            try writeAll(BTSnoop.record(traced, direction: direction, unixMicroseconds: Clock.unixMicroseconds()))
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
