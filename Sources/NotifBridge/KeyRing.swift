import BluetoothCore

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

/// Prepared key pairs by exchange, and the activated generations. The
/// rules (docs/NOTIFBRIDGE.md, "Keys"): at most 4 prepared keys and 4
/// generations; envelopes try the newest generation first; a replaced
/// generation stays valid 300 s; reverse traffic uses the newest only;
/// prepare and activate may be repeated without harm.
public struct KeyRing: Equatable {
    public static let maxPrepared = 4
    public static let maxGenerations = 4
    /// How long a replaced generation still opens envelopes, in ms.
    public static let grace: Int64 = 300_000

    struct Prepared: Equatable {
        var key: PreparedKey
        /// An activation has used it: envelopes that do not open are not
        /// waiting for this one.
        var activated: Bool
    }

    /// Oldest first.
    var prepared: [Prepared] = []
    /// Newest first.
    public internal(set) var generations: [KeyGeneration] = []

    public init() {}

    public enum PrepareResult: Equatable, CustomStringConvertible {
        case added, repeated, changed

        public var description: String {
            switch self {
            case .added: return "added"
            case .repeated: return "repeated"
            case .changed: return "changed"
            }
        }
    }

    /// Keeps a key pair for its exchange. The same pair again changes
    /// nothing; a different pair under a known exchange replaces it.
    public mutating func prepare(_ key: PreparedKey) -> PrepareResult {
        if let index = prepared.firstIndex(where: { $0.key.exchangeID == key.exchangeID }) {
            if prepared[index].key == key { return .repeated }
            prepared[index] = Prepared(key: key, activated: false)
            return .changed
        }
        prepared.append(Prepared(key: key, activated: false))
        if prepared.count > KeyRing.maxPrepared {
            Log.info("notifbridge", "prepared key for \(prepared[0].key.exchangeID) forgotten: more than \(KeyRing.maxPrepared)")
            prepared.removeFirst()
        }
        return .added
    }

    public func preparedKey(for exchange: ExchangeID) -> PreparedKey? {
        prepared.first(where: { $0.key.exchangeID == exchange })?.key
    }

    /// A prepared key no activation has used yet: an envelope that opens
    /// with no generation may be waiting for it.
    public var awaitsActivation: Bool { prepared.contains(where: { !$0.activated }) }

    public enum ActivateResult: Equatable, CustomStringConvertible {
        case activated, repeated

        public var description: String {
            switch self {
            case .activated: return "activated"
            case .repeated: return "repeated"
            }
        }
    }

    /// Makes a new newest generation (the previous newest starts its grace
    /// period). The same activation again changes nothing.
    public mutating func activate(_ generation: KeyGeneration, now: Instant) -> ActivateResult {
        if let index = prepared.firstIndex(where: { $0.key.exchangeID == generation.exchangeID }) {
            prepared[index].activated = true
        }
        if let index = generations.firstIndex(where: { $0.exchangeID == generation.exchangeID }) {
            if generations[index].exporterSecret == generation.exporterSecret, generations[index].info == generation.info {
                return .repeated
            }
            generations.remove(at: index)
        }
        if !generations.isEmpty, generations[0].replacedAt == nil { generations[0].replacedAt = now }
        var fresh = generation
        fresh.replacedAt = nil
        generations.insert(fresh, at: 0)
        if generations.count > KeyRing.maxGenerations {
            Log.info("notifbridge", "key generation of \(generations[KeyRing.maxGenerations].exchangeID) dropped: more than \(KeyRing.maxGenerations)")
            generations.removeLast(generations.count - KeyRing.maxGenerations)
        }
        return .activated
    }

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
        generations = usable(at: now)
        for _ in generations.count..<before {
            Log.info("notifbridge", "a replaced key generation ended its \(KeyRing.grace / 1000) s grace")
        }
        return generations.count != before
    }

    /// When the next replaced generation runs out.
    public var nextExpiry: Instant? {
        var next: Instant? = nil
        for g in generations { next = earliest(next, g.replacedAt?.adding(milliseconds: KeyRing.grace)) }
        return next
    }
}
