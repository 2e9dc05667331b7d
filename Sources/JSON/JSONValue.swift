/// One JSON value as parsed (RFC 8259). Objects keep their members in the
/// order they came, duplicates included: access takes the first, as the
/// senders we talk to never repeat a key.
public indirect enum JSONValue: Equatable {
    case object([JSONMember])
    case array([JSONValue])
    case string(String)
    case number(JSONNumber)
    case bool(Bool)
    case null

    /// What kind of value this is, for error messages.
    public var type: JSONType {
        switch self {
        case .object: return .object
        case .array: return .array
        case .string: return .string
        case .number: return .number
        case .bool: return .bool
        case .null: return .null
        }
    }
}

/// One `"key": value` of an object.
public struct JSONMember: Equatable {
    public var key: String
    public var value: JSONValue

    public init(_ key: String, _ value: JSONValue) {
        self.key = key
        self.value = value
    }
}

public enum JSONType: Equatable, CustomStringConvertible {
    case object, array, string, number, bool, null

    public var description: String {
        switch self {
        case .object: return "object"
        case .array: return "array"
        case .string: return "string"
        case .number: return "number"
        case .bool: return "boolean"
        case .null: return "null"
        }
    }
}
