import BluetoothCore
import HPKE

/// One activated key: the HPKE exporter secret of an exchange and the
/// `info` it was made with (the export contexts start with it).
public struct KeyGeneration: Equatable {
    public let exchangeID: ExchangeID
    public let info: [UInt8]
    public let exporterSecret: [UInt8]
    /// When a newer generation took its place; it stays usable for
    /// `KeyRing.grace` after that. nil while it is the newest.
    public internal(set) var replacedAt: Instant?

    public init(exchangeID: ExchangeID, info: [UInt8], exporterSecret: [UInt8], replacedAt: Instant? = nil) {
        self.exchangeID = exchangeID
        self.info = info
        self.exporterSecret = exporterSecret
        self.replacedAt = replacedAt
    }
}

/// Prepared key pairs by exchange, the activated generations, and what
/// must outlive a restart to refuse replays: the exchanges already
/// activated, the deliveries taken and the notifications' ordering. The
/// rules (docs/NOTIFBRIDGE.md, "Keys"): at most 4 prepared keys and 4
/// generations; envelopes try the newest generation first; a replaced
/// generation stays valid 300 s from its replacement; reverse traffic uses
/// the newest only; an exchange is activated once (its seed is then
/// dropped), so no packet, however old, brings a replaced or expired
/// generation back.
public struct KeyRing: Equatable {
    public static let maxPrepared = 4
    public static let maxGenerations = 4
    /// Exchanges remembered as activated: far more rotations than a phone
    /// makes between two pairings.
    public static let maxSpent = 32
    /// How long a replaced generation still opens envelopes, in ms.
    public static let grace: Int64 = 300_000

    /// Oldest first. A key leaves when it is activated (its seed wiped).
    public internal(set) var prepared: [PreparedKey] = []
    /// Newest first.
    public internal(set) var generations: [KeyGeneration] = []
    /// Exchanges activated, oldest first, generations and retired ones alike.
    public internal(set) var spent: [ExchangeID] = []
    /// Envelopes taken, so that a replay is acknowledged and not shown.
    public internal(set) var deliveries = DeliveryLog()
    /// The ordering of events per notification.
    public internal(set) var ledger = NotificationLedger()

    public init() {}

    public enum PrepareResult: Equatable, CustomStringConvertible {
        case added, repeated, changed
        /// Its exchange was activated already: a replay, ignored.
        case spent

        public var description: String {
            switch self {
            case .added: return "added"
            case .repeated: return "repeated"
            case .changed: return "changed"
            case .spent: return "already activated, ignored"
            }
        }
    }

    /// Keeps a key pair for its exchange. The same pair again changes
    /// nothing; a different pair under a known exchange replaces it; a pair
    /// for an exchange already activated is a replay and changes nothing.
    public mutating func prepare(_ key: PreparedKey) -> PrepareResult {
        if isSpent(key.exchangeID) { return .spent }
        if let index = prepared.firstIndex(where: { $0.exchangeID == key.exchangeID }) {
            if prepared[index] == key { return .repeated }
            wipeSecret(prepared[index].seed)
            prepared[index] = key
            return .changed
        }
        prepared.append(key)
        if prepared.count > KeyRing.maxPrepared {
            Log.info("notifbridge", "prepared key for \(prepared[0].exchangeID) forgotten: more than \(KeyRing.maxPrepared)")
            wipeSecret(prepared.removeFirst().seed)
        }
        return .added
    }

    public func preparedKey(for exchange: ExchangeID) -> PreparedKey? {
        prepared.first(where: { $0.exchangeID == exchange })
    }

    /// Whether the exchange was activated (now or before a restart).
    public func isSpent(_ exchange: ExchangeID) -> Bool { spent.contains(exchange) }

    /// A prepared key not activated yet: an envelope that opens with no
    /// generation may be waiting for it.
    public var awaitsActivation: Bool { !prepared.isEmpty }

    public enum ActivateResult: Equatable, CustomStringConvertible {
        case activated
        /// The exchange is a generation already: nothing changes.
        case repeated
        /// The exchange was activated and has since been replaced or has
        /// expired: installing it again would roll the keys back. Refused.
        case rolledBack

        public var description: String {
            switch self {
            case .activated: return "activated"
            case .repeated: return "repeated"
            case .rolledBack: return "refused: an exchange already replaced or expired"
            }
        }
    }

    /// What an activate of `exchange` would do without deriving anything:
    /// nil when it is new (and needs its prepared key).
    public func activationOutcome(_ exchange: ExchangeID) -> ActivateResult? {
        guard isSpent(exchange) else { return nil }
        return generations.contains(where: { $0.exchangeID == exchange }) ? .repeated : .rolledBack
    }

    /// Makes a new newest generation (the previous newest starts its grace
    /// period), drops and wipes its prepared seed, and remembers the
    /// exchange as spent. An exchange already spent changes nothing.
    public mutating func activate(_ generation: KeyGeneration, now: Instant) -> ActivateResult {
        if let outcome = activationOutcome(generation.exchangeID) {
            wipeSecret(generation.exporterSecret)
            return outcome
        }
        if let index = prepared.firstIndex(where: { $0.exchangeID == generation.exchangeID }) {
            wipeSecret(prepared.remove(at: index).seed)
        }
        spent.append(generation.exchangeID)
        if spent.count > KeyRing.maxSpent { spent.removeFirst(spent.count - KeyRing.maxSpent) }
        if !generations.isEmpty, generations[0].replacedAt == nil { generations[0].replacedAt = now }
        var fresh = generation
        fresh.replacedAt = nil
        generations.insert(fresh, at: 0)
        if generations.count > KeyRing.maxGenerations {
            Log.info("notifbridge", "key generation of \(generations[KeyRing.maxGenerations].exchangeID) dropped: more than \(KeyRing.maxGenerations)")
            for dropped in generations[KeyRing.maxGenerations...] { wipeSecret(dropped.exporterSecret) }
            generations.removeLast(generations.count - KeyRing.maxGenerations)
        }
        return .activated
    }

    /// An envelope taken: remembered (and stored) so that it is shown once.
    public mutating func delivered(_ key: DeliveryKey) { deliveries.insert(key) }

    public mutating func admit(_ identity: IdentityDigest, sentAt: Double) -> Bool { ledger.admit(identity, sentAt: sentAt) }

    public mutating func admitRemoveAll(sentAt: Double) -> Bool { ledger.admitRemoveAll(sentAt: sentAt) }

    /// The generations that may open an envelope now, newest first.
    public func usable(at now: Instant) -> [KeyGeneration] {
        generations.filter { g in
            guard let replaced = g.replacedAt else { return true }
            return now.millisecondsSince(replaced) < KeyRing.grace
        }
    }

    /// The key of reverse traffic.
    public var newest: KeyGeneration? { generations.first }

    /// Drops generations whose grace is over; true when one went.
    public mutating func expire(now: Instant) -> Bool {
        let before = generations.count
        let kept = usable(at: now)
        for g in generations where !kept.contains(where: { $0.exchangeID == g.exchangeID }) {
            Log.info("notifbridge", "a replaced key generation ended its \(KeyRing.grace / 1000) s grace")
            wipeSecret(g.exporterSecret)
        }
        generations = kept
        return generations.count != before
    }

    /// When the next replaced generation runs out.
    public var nextExpiry: Instant? {
        @inline(__always) get {
            var next: Instant? = nil
            for g in generations { next = earliest(next, g.replacedAt?.adding(milliseconds: KeyRing.grace)) }
            return next
        }
    }
}
