import ATT

/// What a bearer tells its owner, drained with `GATTBearer.pollEvent()`, in
/// the order it happened.
public enum GATTBearerEvent: Hashable {
    /// A client procedure ended: each queued request completes exactly once.
    case completed(GATTRequestID, GATTClientResult)
    /// The peer's server notified or indicated a value (an indication is
    /// already confirmed). Every value comes out here: which client
    /// subscribed to the handle is its owner's to know.
    case valueReceived(AttributeHandle, [UInt8], isIndication: Bool)
    /// A request or indication went unanswered for 30 s. The bearer is dead
    /// (Core Vol 3 Part F 3.3.3): every pending request failed with
    /// `.timeout`; the owner must disconnect the link.
    case transactionTimeout
    /// The ATT_MTU changed (after an MTU exchange in either direction).
    case mtuChanged(Int)
    /// The client changed a CCCD of our server, or became aware of a
    /// database change: for a bonded client, store its state again
    /// (`GATTServer.storedConfigurations`).
    case clientStateChanged
}
