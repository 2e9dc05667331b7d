import BluetoothCore

/// Envelopes that arrived before the key that opens them was activated.
/// They wait unacknowledged (no receipt: the phone keeps them as not
/// delivered) and are tried again after every activation. Bounded in
/// count and age so a phone that never activates cannot fill the head unit.
public struct Inbox {
    public static let capacity = 16
    /// ms an envelope waits at most.
    public static let lifetime: Int64 = 300_000

    public struct Waiting {
        public let envelope: NotificationEnvelope
        public let arrived: Instant
    }

    private var waiting: [Waiting] = []

    public init() {}

    public var count: Int { waiting.count }

    /// Keeps the envelope; the oldest one goes when full.
    public mutating func add(_ envelope: NotificationEnvelope, arrived: Instant) {
        waiting.append(Waiting(envelope: envelope, arrived: arrived))
        if waiting.count > Inbox.capacity {
            Log.info("notifbridge", "inbox full: the oldest waiting envelope dropped")
            waiting.removeFirst()
        }
    }

    /// Everything waiting, oldest first; the inbox is empty after.
    public mutating func takeAll() -> [Waiting] {
        let all = waiting
        waiting = []
        return all
    }

    /// Drops envelopes older than `lifetime`; returns how many.
    public mutating func expire(now: Instant) -> Int {
        let before = waiting.count
        waiting.removeAll { now.millisecondsSince($0.arrived) >= Inbox.lifetime }
        return before - waiting.count
    }

    public var nextExpiry: Instant? { waiting.map { $0.arrived }.min()?.adding(milliseconds: Inbox.lifetime) }
}
