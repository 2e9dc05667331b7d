/// What the receiver asks of the link and of the head unit, drained with
/// `NotifBridgeReceiver.pollOutput()` in order.
public enum NotifBridgeOutput: Equatable {
    /// One value to indicate on the receipts characteristic (an NBA1 ack,
    /// or a START / slice / END of a reverse frame), in this order.
    case indicate([UInt8])
    /// Store these bytes atomically (mode 0600) as the key file, then call
    /// `keysStored(ok:)` with the outcome: key receipts wait for it.
    case storeKeys([UInt8])
    /// A decrypted notification event for the head unit's model.
    case event(NotifBridgeEvent)
}

/// A notification event as the head unit's model takes it.
public enum NotifBridgeEvent: Equatable {
    case add(BridgeNotification)
    case update(BridgeNotification)
    case remove(NotificationIdentity)
    /// Every notification from the phone is gone.
    case removeAll
}
