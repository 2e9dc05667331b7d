import BluetoothCore
import CLinux
import GhostDrop
import HeadUnitCore
import Platform

/// The file a GhostDrop transfer brings, under the state directory:
/// `ghostdrop-incoming` while it arrives, `ghostdrop-resume` saying how much
/// of it is confirmed (written after the bytes, atomically), and
/// `received-NAME` once whole and checked, then handed on (`ReceivedFile`).
struct GhostDropStore {
    static let incoming = "ghostdrop-incoming"
    static let resume = "ghostdrop-resume"
    /// How much of the incoming file is read at a time to rebuild its SHA-256.
    static let readChunk = 64 * 1024

    let files: any StateStorage

    /// What a restart resumes from: the resume state and the SHA-256 of the
    /// bytes it says are written, read from the incoming file in 64 KiB
    /// chunks (a bundle of 30 MiB is never held whole). Nil digest: the
    /// file is missing or shorter than the state says (the core starts over).
    func load() -> (resume: [UInt8]?, written: GhostDigest?) {
        guard let resume = files.read(GhostDropStore.resume) else { return (nil, nil) }
        guard let state = try? GhostResumeState(decoding: resume) else { return (resume, nil) }
        return (resume, digest(ofFirst: state.writtenBytes))
    }

    /// SHA-256 of the incoming file's first `count` bytes; nil if it has fewer.
    func digest(ofFirst count: Int64) -> GhostDigest? {
        let path = files.path(GhostDropStore.incoming)
        let fd = nn_open(path, O_RDONLY | O_CLOEXEC, 0)
        guard fd >= 0 else { return nil }
        defer { FileDescriptor.close(fd) }
        let digest = GhostDigest()
        while digest.byteCount < count {
            let want = Int(min(Int64(GhostDropStore.readChunk), count - digest.byteCount))
            guard let chunk = try? FileDescriptor.read(fd, max: want), !chunk.isEmpty else {
                Log.warning("ghostdrop", "\(path) holds \(digest.byteCount) of the \(count) bytes its resume state covers")
                return nil
            }
            digest.update(chunk)
        }
        return digest
    }

    /// Free bytes on the state partition (nil when statvfs cannot tell).
    func freeBytes() -> Int64? {
        let free = nn_free_bytes(files.directory)
        return free < 0 ? nil : Int64(free)
    }

    /// What became of a received file once handed on (the console's line
    /// and the screen's outcome); nil for every other step.
    @discardableResult
    func apply(_ op: GhostDropFileOp) -> ReceivedFile.HandedOn? {
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
                try? files.remove(GhostDropStore.resume)
                return ReceivedFile(path: files.path(kept), name: name).handOn()
            }
            try? files.remove(GhostDropStore.resume)
        case .discard:
            try? files.remove(GhostDropStore.incoming)
            try? files.remove(GhostDropStore.resume)
        }
        return nil
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
