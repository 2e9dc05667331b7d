/// AMS EntityID. Values 3-255 are reserved.
public enum EntityID: UInt8, CaseIterable, CustomStringConvertible {
    case player = 0
    case queue = 1
    case track = 2

    public var description: String {
        switch self {
        case .player: return "Player"
        case .queue: return "Queue"
        case .track: return "Track"
        }
    }
}

public enum PlayerAttributeID: UInt8, CaseIterable {
    /// The localized name of the playing app.
    case name = 0
    /// `PlaybackState,PlaybackRate,ElapsedTime`.
    case playbackInfo = 1
    /// A decimal 0 (silent) ... 1 (full).
    case volume = 2
}

public enum QueueAttributeID: UInt8, CaseIterable {
    case index = 0
    case count = 1
    case shuffleMode = 2
    case repeatMode = 3
}

public enum TrackAttributeID: UInt8, CaseIterable {
    case artist = 0
    case album = 1
    case title = 2
    /// Seconds, decimal.
    case duration = 3
}

/// One attribute of one entity: what an Entity Update names.
public enum EntityAttribute: Hashable, CustomStringConvertible {
    case player(PlayerAttributeID)
    case queue(QueueAttributeID)
    case track(TrackAttributeID)

    /// Nil for reserved entity or attribute values.
    public init?(entity: UInt8, attribute: UInt8) {
        switch EntityID(rawValue: entity) {
        case .player: guard let a = PlayerAttributeID(rawValue: attribute) else { return nil }; self = .player(a)
        case .queue: guard let a = QueueAttributeID(rawValue: attribute) else { return nil }; self = .queue(a)
        case .track: guard let a = TrackAttributeID(rawValue: attribute) else { return nil }; self = .track(a)
        case nil: return nil
        }
    }

    public var entity: EntityID {
        switch self {
        case .player: return .player
        case .queue: return .queue
        case .track: return .track
        }
    }

    public var attributeID: UInt8 {
        switch self {
        case .player(let a): return a.rawValue
        case .queue(let a): return a.rawValue
        case .track(let a): return a.rawValue
        }
    }

    /// The Entity Attribute write that selects it for a read.
    public var selector: [UInt8] { [entity.rawValue, attributeID] }

    public var description: String { "\(entity).\(attributeID)" }
}

/// AMS EntityUpdateFlags.
public struct EntityUpdateFlags: OptionSet, Hashable {
    public let rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The value did not fit in the notification: read it via Entity Attribute.
    public static let truncated = EntityUpdateFlags(rawValue: 1 << 0)
}

/// One Entity Update notification: EntityID, AttributeID, flags, value (UTF-8).
public struct EntityUpdate: Equatable {
    public var attribute: EntityAttribute
    public var flags: EntityUpdateFlags
    public var value: [UInt8]

    public init(attribute: EntityAttribute, flags: EntityUpdateFlags = [], value: [UInt8]) {
        self.attribute = attribute
        self.flags = flags
        self.value = value
    }

    public enum ParseError: Error, Equatable {
        /// Fewer than 3 bytes.
        case tooShort(Int)
        /// An EntityID or AttributeID from a reserved range.
        case reserved(entity: UInt8, attribute: UInt8)
    }

    public init(parsing bytes: [UInt8]) throws(ParseError) {
        guard bytes.count >= 3 else { throw .tooShort(bytes.count) }
        guard let attribute = EntityAttribute(entity: bytes[0], attribute: bytes[1]) else {
            throw .reserved(entity: bytes[0], attribute: bytes[1])
        }
        self.init(attribute: attribute, flags: EntityUpdateFlags(rawValue: bytes[2]), value: Array(bytes[3...]))
    }

    public var bytes: [UInt8] { attribute.selector + [flags.rawValue] + value }

    public var text: String { String(decoding: value, as: UTF8.self) }
}
