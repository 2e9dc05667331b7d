import GhostDrop

/// What a GhostDrop transfer tells the event log (`CoreEvent.ghostDrop`):
/// the receiver's events without the file's bytes.
public enum GhostDropReport: Equatable {
    /// The six digits to compare with the phone's; `confirm`/`cancel` answer.
    case code(String)
    /// Both sides said the codes match.
    case verified
    /// A file is offered; its bytes come from `startOffset` (0, or where a
    /// transfer broken off before stopped).
    case incoming(filename: String, size: Int64, mimeType: String, startOffset: Int64)
    case progress(bytesReceived: Int64, totalBytes: Int64, bytesPerSecond: Int64, etaSeconds: Int64?)
    /// Every byte arrived and the SHA-256 is the announced one.
    case completed(filename: String, size: Int64)
    /// Over without a file: cancelled by the phone (`byPeer`) or by us, and why.
    case ended(reason: String, byPeer: Bool, resumable: Bool)

    /// Nil for the file's bytes (`write`), which are no line of the log.
    init?(_ event: GhostReceiverEvent) {
        switch event {
        case .showCode(let code): self = .code(code)
        case .verified: self = .verified
        case let .incoming(metadata, startOffset):
            self = .incoming(filename: metadata.filename, size: metadata.size, mimeType: metadata.mimeType, startOffset: startOffset)
        case .write: return nil
        case .progress(let p):
            self = .progress(bytesReceived: p.bytesReceived, totalBytes: p.totalBytes, bytesPerSecond: p.bytesPerSecond,
                             etaSeconds: p.etaSeconds)
        case .completed(let metadata): self = .completed(filename: metadata.filename, size: metadata.size)
        case .ended(let end): self = .ended(reason: end.reason, byPeer: end.byPeer, resumable: end.resumable)
        }
    }
}
