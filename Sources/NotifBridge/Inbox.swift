import BluetoothCore

/// Envelopes that arrived before the key that opens them was activated.
/// They wait unacknowledged (no receipt: the phone keeps them as not
/// delivered) and are tried again after every activation. Bounded in
/// count, bytes and age so a phone that never activates cannot fill the
/// head unit: 16 envelopes (the reference's figure), 2 MiB of sealed bytes
/// (two of the largest frames kept; a text notification is a few KB).
public struct Inbox {
    public static let capacity = 16
    public static let maxBytes = 2 * 1024 * 1024
    /// ms an envelope waits at most.
    public static let lifetime: Int64 = 300_000

    public struct Waiting {
        public let envelope: NotificationEnvelope
        public let arrived: Instant
    }

    private var waiting: [Waiting] = []
    /// Sealed bytes waiting (at most 16 envelopes to add up).
    public var bytes: Int { waiting.reduce(0) { $0 + $1.envelope.sealed.count } }

    public init() {}

    public var count: Int { waiting.count }

    /// Keeps the envelope; the oldest ones go when full.
    public mutating func add(_ envelope: NotificationEnvelope, arrived: Instant) {
        waiting.append(Waiting(envelope: envelope, arrived: arrived))
        while waiting.count > Inbox.capacity || (bytes > Inbox.maxBytes && waiting.count > 1) {
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

    /// Inlined into the receiver's deadline, asked once per wake-up
    /// (mostly of an empty inbox): no array of the times made, no copy of
    /// the inbox to ask it.
    public var nextExpiry: Instant? {
        @inline(__always) get {
            var oldest: Instant?
            for w in waiting { oldest = earliest(oldest, w.arrived) }
            return oldest?.adding(milliseconds: Inbox.lifetime)
        }
    }
}
