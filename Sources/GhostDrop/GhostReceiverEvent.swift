/// What the receiver tells the shell (`GhostReceiver.pollEvent()`).
public enum GhostReceiverEvent: Equatable {
    /// Show the 6-digit code with "Codes match" / "Cancel": answer with
    /// `confirm()` or `reject()`.
    case showCode(String)
    /// Both sides confirmed the code.
    case verified
    /// A file is offered. Its bytes come as `write` events from
    /// `startOffset` on (0, or the resumed point): the shell truncates what
    /// it holds to `startOffset`. `cancel(reason:)` refuses it.
    case incoming(GhostFileMetadata, startOffset: Int64)
    /// Plaintext to write at `offset`, in order and without gaps.
    case write(offset: Int64, bytes: [UInt8])
    case progress(GhostProgress)
    /// Every byte arrived and its SHA-256 is the one the sender announced
    /// and confirmed: the file is whole. The resume state is void.
    case completed(GhostFileMetadata)
    /// The session is over without a file: `byPeer` when the sender
    /// cancelled. `resumable` when the shell should keep the resume state.
    case ended(GhostEnd)
}

/// Why a session ended without a file.
public struct GhostEnd: Equatable {
    public var byPeer: Bool
    public var reason: String
    public var resumable: Bool

    public init(byPeer: Bool, reason: String, resumable: Bool) {
        self.byPeer = byPeer
        self.reason = reason
        self.resumable = resumable
    }
}

/// Bytes held against the whole, with the rate of this session.
public struct GhostProgress: Equatable {
    public var bytesReceived: Int64
    public var totalBytes: Int64
    /// Payload bytes per second of this connection, smoothed over about
    /// two seconds (`GhostRate`); 0 until a first
    /// interval after the session's first chunk was measured.
    public var bytesPerSecond: Int64
    /// Seconds left at that rate, rounded up; nil until there is a rate.
    public var etaSeconds: Int64?

    public init(bytesReceived: Int64, totalBytes: Int64, bytesPerSecond: Int64, etaSeconds: Int64?) {
        self.bytesReceived = bytesReceived
        self.totalBytes = totalBytes
        self.bytesPerSecond = bytesPerSecond
        self.etaSeconds = etaSeconds
    }
}
