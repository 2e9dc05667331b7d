/// What a bearer tells its owner, drained with `GATTBearer.pollEvent()`.
public enum GATTBearerEvent: Hashable {
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
