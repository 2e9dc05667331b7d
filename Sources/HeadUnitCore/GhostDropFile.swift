import BluetoothCore
import GhostDrop

/// What the shell does with the file a GhostDrop transfer brings, under
/// the state directory (`StateWrite.ghostDrop`): the bytes go to the
/// incoming file, and the resume state, kept after them, says how many of
/// them are confirmed, so a link loss or a restart continues there.
public enum GhostDropFileOp: Equatable {
    /// A file is offered: cut the incoming file to `length` bytes (0, or
    /// where the resumed transfer continues).
    case begin(length: Int64)
    /// Append to the incoming file (offsets follow one another).
    case append([UInt8])
    /// Replace the resume state file (`GhostResumeState.encoded`), once
    /// the bytes appended before it are on disk.
    case resumeState([UInt8])
    /// The file is whole and its SHA-256 checked: keep it under this name
    /// (`GhostDropFileOp.safeName` of the sender's) and drop the resume state.
    case completed(name: String)
    /// Nothing is to resume: delete the incoming file and the resume state.
    case discard

    /// The sender's filename as one harmless name in the state directory:
    /// its last path component, letters, digits, `.`, `-` and `_` kept,
    /// anything else `_`, no leading dot, at most 64 bytes.
    public static func safeName(_ filename: String) -> String {
        let last = filename.split(separator: "/").last.map(String.init) ?? ""
        var bytes: [UInt8] = []
        for byte in last.utf8.prefix(64) {
            let allowed = (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x2D || byte == 0x5F
            bytes.append(allowed ? byte : 0x5F)
        }
        while bytes.first == 0x2E { bytes[0] = 0x5F }
        return bytes.isEmpty ? "file" : String(decoding: bytes, as: UTF8.self)
    }
}

/// What a transfer broken off leaves for the next session (a new channel,
/// or the head unit started again): the resume state and the SHA-256 state
/// of the bytes it says are written, from which the next receiver's digest
/// goes on. The bytes themselves stay on disk: memory does not grow with
/// the file.
struct GhostDropPartial {
    var resume: GhostResumeState?
    /// SHA-256 of the incoming file's first `resume.writtenBytes` bytes.
    var written = GhostDigest()
    /// A session began the incoming file since: it is to delete even
    /// before its first resume state.
    var begun = false

    /// The kept files, as the shell read them at start (the resume state,
    /// and the digest of the bytes it says are written); nil or
    /// inconsistent ones start over (with a log line).
    init(resume: [UInt8]?, written: GhostDigest?) {
        guard let resume else { return }
        do {
            let state = try GhostResumeState(decoding: resume)
            guard let written, written.byteCount == state.writtenBytes else {
                Log.warning("ghostdrop", "the incoming file is shorter than its resume state says; the transfer starts over")
                return
            }
            self.resume = state
            self.written = written
        } catch {
            Log.warning("ghostdrop", "unreadable resume state (\(error)); the transfer starts over")
        }
    }

    /// A receiver for a new session, continuing from what is kept.
    func receiver(random: RandomSource) -> GhostReceiver {
        let receiver = GhostReceiver(random: random, resume: resume)
        if resume != nil { receiver.restoreWritten(digest: written) }
        return receiver
    }

    /// One event of the receiver: what the shell must write, in order.
    mutating func track(_ event: GhostReceiverEvent, _ ops: inout FIFO<GhostDropFileOp>) {
        switch event {
        case .incoming(_, let startOffset):
            begun = true
            ops.append(.begin(length: startOffset))
        case .write(_, let bytes):
            ops.append(.append(bytes))
        case .completed(let metadata):
            self = GhostDropPartial(resume: nil, written: nil)
            ops.append(.completed(name: GhostDropFileOp.safeName(metadata.filename)))
        case .ended(let end) where !end.resumable:
            guard resume != nil || begun || written.byteCount > 0 else { return }
            self = GhostDropPartial(resume: nil, written: nil)
            ops.append(.discard)
        default:
            break
        }
    }

    /// The resume state is written again once it covers this many more
    /// bytes, and when a session ends: each write costs the shell two
    /// fsyncs, and a restart in between merely resumes a little earlier.
    static let resumeStride: Int64 = 64 * 1024

    /// After a receiver's events: its resume state, when it moved far
    /// enough or the session is over (`final`).
    mutating func keep(_ state: GhostResumeState?, final: Bool, _ ops: inout FIFO<GhostDropFileOp>) {
        guard let state, state != resume else { return }
        if let resume, resume.metadata == state.metadata, !final,
           state.writtenBytes < state.metadata.size, state.writtenBytes - resume.writtenBytes < GhostDropPartial.resumeStride {
            return
        }
        resume = state
        ops.append(.resumeState(state.encoded))
    }
}
