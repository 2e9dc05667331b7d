import BluetoothCore
import CLinux
import HeadUnitCore
import Platform

/// The file a GhostDrop transfer brings, under the state directory:
/// `ghostdrop-incoming` while it arrives, `ghostdrop-resume` saying how much
/// of it is confirmed (written after the bytes, atomically), and
/// `received-NAME` once whole and checked.
struct GhostDropStore {
    static let incoming = "ghostdrop-incoming"
    static let resume = "ghostdrop-resume"
    /// What is read back at start to resume: larger incoming files start over.
    static let maxResumedBytes = 16 * 1024 * 1024

    let files: any StateStorage

    /// What a restart resumes from: the resume state and the bytes it covers.
    func load() -> (resume: [UInt8]?, incoming: [UInt8]?) {
        guard let resume = files.read(GhostDropStore.resume) else { return (nil, nil) }
        return (resume, files.read(GhostDropStore.incoming, limit: GhostDropStore.maxResumedBytes))
    }

    func apply(_ op: GhostDropFileOp) {
        switch op {
        case .begin(let length):
            withIncoming(O_WRONLY | O_CREAT | O_CLOEXEC) { fd in ftruncate(fd, off_t(length)) == 0 }
        case .append(let bytes):
            withIncoming(O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC) { fd in
                var offset = 0
                while offset < bytes.count {
                    guard let n = try? FileDescriptor.write(fd, bytes[offset...]), n > 0 else { return false }
                    offset += n
                }
                return true
            }
        case .resumeState(let bytes):
            // The bytes it counts reach the disk before it does.
            withIncoming(O_WRONLY | O_CREAT | O_CLOEXEC) { fd in fdatasync(fd) == 0 }
            try? files.write(GhostDropStore.resume, bytes)
        case .completed(let name):
            let kept = "received-" + name
            if rename(files.path(GhostDropStore.incoming), files.path(kept)) != 0 {
                Log.error("ghostdrop", "could not keep the received file as \(files.path(kept)) (errno \(nn_errno()))")
            } else {
                Log.info("ghostdrop", "received \(files.path(kept))")
            }
            try? files.remove(GhostDropStore.resume)
        case .discard:
            try? files.remove(GhostDropStore.incoming)
            try? files.remove(GhostDropStore.resume)
        }
    }

    private func withIncoming(_ flags: Int32, _ body: (Int32) -> Bool) {
        let path = files.path(GhostDropStore.incoming)
        let fd = nn_open(path, flags, FileDescriptor.ownerOnlyMode)
        guard fd >= 0 else {
            Log.error("ghostdrop", "cannot open \(path) (errno \(nn_errno()))")
            return
        }
        defer { FileDescriptor.close(fd) }
        if !body(fd) { Log.error("ghostdrop", "cannot write \(path) (errno \(nn_errno()))") }
    }
}
