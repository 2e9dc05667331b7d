import JSON

/// The plaintext reverse frames.
public enum ReversePlaintext {
    /// "I have this", for an accepted envelope (duplicates too) or a key
    /// packet once its key is stored durably.
    public static func receipt(_ id: ReceiptID) -> [UInt8] {
        JSONValue.object([JSONMember("kind", .string("notifbridge.accepted.v1")),
                          JSONMember("id", .string(id.description))]).encoded
    }

    /// Sent after the phone subscribes: it restarts its current frame or drains its queue.
    public static let readiness: [UInt8] = Array("NB-RECEIVER-READY-1".utf8)
}
