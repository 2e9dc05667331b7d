/// A notification as the ledger knows it: the first 16 bytes of SHA-256 of
/// its identity (`<source length>:<source><notification id>`, the phone's
/// own key), so that the ledger can be stored without any app's text.
public struct IdentityDigest: Hashable {
    public static let length = 16
    public let bytes: [UInt8]

    public init?(_ bytes: ArraySlice<UInt8>) {
        guard bytes.count == IdentityDigest.length else { return nil }
        self.bytes = Array(bytes)
    }

    /// The text that is hashed: the phone's `Identity.key`.
    public static func key(of identity: NotificationIdentity) -> [UInt8] {
        Array("\(identity.sourceIdentifier.utf8.count):\(identity.sourceIdentifier)\(identity.notificationIdentifier)".utf8)
    }
}

/// Orders events by their `sentAt`: per notification only a newer event
/// counts (strictly newer, as the phone's own ledger), and nothing sent
/// before the last `removeAll` counts. Events can arrive out of order (a
/// resend after a failed frame overtakes later ones), and an old envelope
/// replayed, even after a restart, is older than what it was followed by:
/// the ledger is stored in the key file (docs/NOTIFBRIDGE.md, "Persistence").
public struct NotificationLedger: Equatable {
    /// Enough notifications for a phone's Notification Center; the oldest
    /// entry goes beyond it (at worst an old event is applied once more).
    public static let capacity = 512

    private var latest: [IdentityDigest: Double] = [:]
    /// Oldest first.
    private(set) var order: [IdentityDigest] = []
    /// `sentAt` of the last removeAll.
    public private(set) var clearedAt: Double? = nil

    public init() {}

    public var count: Int { order.count }

    /// `sentAt` last admitted for a notification.
    func sentAt(_ identity: IdentityDigest) -> Double? { latest[identity] }

    /// Whether an event sent at `sentAt` about `identity` is news; records it when it is.
    public mutating func admit(_ identity: IdentityDigest, sentAt: Double) -> Bool {
        if let clearedAt, sentAt <= clearedAt { return false }
        if let known = latest[identity] {
            guard sentAt > known else { return false }
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

    /// A removeAll sent at `sentAt`: true unless one as new is already known.
    public mutating func admitRemoveAll(sentAt: Double) -> Bool {
        if let clearedAt, sentAt <= clearedAt { return false }
        clearedAt = sentAt
        latest = [:]
        order = []
        return true
    }

    /// As read from the key file: entries oldest first.
    mutating func restore(clearedAt: Double?, entries: [(IdentityDigest, Double)]) {
        self = NotificationLedger()
        self.clearedAt = clearedAt
        for (identity, sentAt) in entries.suffix(NotificationLedger.capacity) where latest[identity] == nil {
            latest[identity] = sentAt
            order.append(identity)
        }
    }
}
