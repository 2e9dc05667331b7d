/// Limits and timers of the ANCS client. The defaults suit a real phone;
/// tests shorten the timers.
public struct ANCSConfiguration {
    /// Maximum lengths asked for in GetNotificationAttributes (bytes).
    public var titleMaxLength: UInt16 = 64
    public var subtitleMaxLength: UInt16 = 64
    public var messageMaxLength: UInt16 = 256
    /// Ask for the action labels of notifications that have actions.
    public var fetchActionLabels = true
    /// A Control Point request whose write or Data Source response has not
    /// completed by then fails (only that request).
    public var requestTimeoutMilliseconds: Int64 = 5_000
    /// The Control Point is probed when nothing succeeded on it for this long.
    public var probeIntervalMilliseconds: Int64 = 15 * 60 * 1000
    /// While notifications are expected (see `ANCSClient.notificationsExpected`),
    /// a Notification Source silent for this long is re-subscribed.
    public var silenceThresholdMilliseconds: Int64 = 10 * 60 * 1000
    /// The probe proves only the Control Point path: iOS has been seen to
    /// keep answering it while its Notification Source pushes had stopped
    /// (after airplane-mode toggles, time-zone changes). When a probe is
    /// answered and the Notification Source has sent nothing new (PreExisting
    /// replays do not count) for this long, both CCCDs are written again.
    /// Hours, so a quiet phone costs one re-subscription now and then.
    public var notificationSourceSilenceLimitMilliseconds: Int64 = 3 * 60 * 60 * 1000
    /// After a refused subscription, try again this much later.
    public var subscribeRetryMilliseconds: Int64 = 60_000
    /// After a subscription refused with Insufficient Authorization, try
    /// again this soon: the iPhone's "Allow notifications?" prompt is open
    /// (just after pairing from Settings), and the driver's answer is not
    /// signalled over the air, so waiting the full retry would leave the
    /// screen empty for a minute after the tap on Allow.
    public var authorizationRetryMilliseconds: Int64 = 3_000
    /// Each further refusal doubles that wait, up to this: a driver who
    /// tapped Don't Allow is not asked every 3 s for the rest of the drive
    /// (each subscription also keeps iOS's prompt logic busy). A session
    /// that starts resets it. Also the wait after `securityRequestLimit`.
    public var authorizationRetryLimitMilliseconds: Int64 = 5 * 60 * 1000
    /// Re-pairings asked for (`securityRequired`) while the phone keeps
    /// refusing the link as not secure (0x05, 0x0F), until its Control
    /// Point answers. After that the driver is told to pair again by hand
    /// (`securityRefusedRepeatedly`): a passkey every minute helps no one.
    public var securityRequestLimit = 2
    /// Notifications kept per session; beyond it the oldest dropped ones go first.
    public var maximumNotifications = 256
    /// Upper bound on an attribute without a requested maximum length
    /// (AppIdentifier, Date, labels, DisplayName).
    public var uncappedAttributeLimit = 512

    public init() {}

    /// The attributes asked for a notification that passed the filter.
    func textRequest(flags: EventFlags) -> [NotificationAttributeRequest] {
        var list = [
            NotificationAttributeRequest(.title, maxLength: titleMaxLength),
            NotificationAttributeRequest(.subtitle, maxLength: subtitleMaxLength),
            NotificationAttributeRequest(.message, maxLength: messageMaxLength),
            NotificationAttributeRequest(.date),
        ]
        if fetchActionLabels && flags.contains(.positiveAction) { list.append(NotificationAttributeRequest(.positiveActionLabel)) }
        if fetchActionLabels && flags.contains(.negativeAction) { list.append(NotificationAttributeRequest(.negativeActionLabel)) }
        return list
    }
}
