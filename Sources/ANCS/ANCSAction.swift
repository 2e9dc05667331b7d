import BluetoothCore

/// What the ANCS client asks its owner to do, drained with
/// `ANCSClient.pollAction()`. Every GATT action is answered with exactly one
/// call of the matching result method.
public enum ANCSAction: Equatable {
    /// Find the ANCS service, its three characteristics and their CCCDs;
    /// answer with `discoveryCompleted(_:now:)`.
    case discover(ConnectionHandle)
    /// Write 0x0001 to the characteristic's CCCD (and route its notifications
    /// to `notificationSourceReceived` / `dataSourceReceived`); answer with
    /// `subscribeCompleted(_:_:now:)`.
    case subscribe(ConnectionHandle, ANCSCharacteristic)
    /// Write 0x0000 to the CCCD; answer with `unsubscribeCompleted(_:_:now:)`.
    case unsubscribe(ConnectionHandle, ANCSCharacteristic)
    /// Write (with response) this value to the Control Point; answer with
    /// `controlPointWriteCompleted(_:now:)`.
    case writeControlPoint(ConnectionHandle, [UInt8])
    /// Is this notification (its AppIdentifier and category known, its
    /// text not yet) worth its text, that is, will it be shown? The filter
    /// is the owner's (the notification model's); answer with
    /// `textWanted(_:for:now:)`. No Control Point request goes out before
    /// the answer, so the text request keeps its place in the queue.
    case askWantsText(ANCSNotification)
    /// Something for the rest of the head unit (the notification model, the
    /// screen, the state files).
    case event(ANCSEvent)
}

/// What the ANCS client reports.
public enum ANCSEvent: Equatable {
    /// Subscribed to both sources: notifications flow (PreExisting first).
    case sessionStarted
    /// The session ended (unsubscribe, re-subscribe, Service Changed,
    /// disconnection): every UID of it is void; forget them all.
    case sessionEnded
    /// A notification that passed the filter, with its text: new, or changed
    /// (the same UID again).
    case notificationFetched(ANCSNotification)
    /// A notification the filter dropped. Only its AppIdentifier was asked
    /// for; its text fields are nil.
    case notificationDropped(ANCSNotification)
    /// A notification reported before (fetched or dropped) is gone.
    case notificationRemoved(ANCSNotification)
    /// The app-name cache learned a name: persist `ANCSClient.appNames`.
    case appNameLearned(AppIdentifier, String)
    /// The phone refuses ANCS to this head unit, for the reason given:
    /// worth a hint on screen. Reported again when the reason changes.
    case sharingDisabled(SharingRefusal)
    /// After `sharingDisabled`, the phone answered normally again.
    case sharingRestored
    /// PerformNotificationAction ended (the phone accepted it, or not).
    case actionCompleted(NotificationUID, ActionID, succeeded: Bool)
    /// The phone has no (complete) ANCS on this link; waiting for Service Changed.
    case serviceAbsent
    /// The phone refused a request for Insufficient Authentication (0x05)
    /// or Insufficient Encryption (0x0F): it does not take this link as
    /// secure. Have the link's Security Manager secure it again
    /// (`SecurityManager.peerRequiresSecurity`); the client ends its session
    /// and subscribes again after `subscribeRetryMilliseconds`.
    case securityRequired
    /// The phone still refuses the link as not secure after
    /// `ANCSConfiguration.securityRequestLimit` re-pairings: no more are
    /// asked for; worth a hint to pair again by hand. Said once, until the
    /// Control Point answers.
    case securityRefusedRepeatedly
}
