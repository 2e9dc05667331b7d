/// Orders events by their `sentAt`: per notification the newest wins, and
/// nothing sent before the last `removeAll` counts. Events can arrive out
/// of order (a resend after a failed frame overtakes later ones).
public struct NotificationLedger {
    /// Enough notifications for a phone's Notification Center; the oldest
    /// entry goes beyond it (at worst an old event is applied once more).
    public static let capacity = 512

    private var latest: [NotificationIdentity: Double] = [:]
    private var order: [NotificationIdentity] = []
    /// `sentAt` of the last removeAll.
    public private(set) var clearedAt: Double? = nil

    public init() {}

    /// Whether an event sent at `sentAt` about `identity` is news; records it when it is.
    public mutating func admit(_ identity: NotificationIdentity, sentAt: Double) -> Bool {
        if let clearedAt, sentAt < clearedAt { return false }
        if let known = latest[identity] {
            guard sentAt >= known else { return false }
            latest[identity] = sentAt
            return true
        }
        latest[identity] = sentAt
        order.append(identity)
        if order.count > NotificationLedger.capacity {
            latest[order.removeFirst()] = nil
        }
        return true
    }

    /// A removeAll sent at `sentAt`: true unless an earlier one is already newer.
    public mutating func admitRemoveAll(sentAt: Double) -> Bool {
        if let clearedAt, sentAt < clearedAt { return false }
        clearedAt = sentAt
        latest = [:]
        order = []
        return true
    }
}
