import BluetoothCore

/// Why bytes are not acceptable JSON, or a parsed value is not what a
/// reader expects. Every case says where: a byte offset into the input for
/// parse errors, the key or index path for access errors.
public enum JSONError: Error, Equatable, CustomStringConvertible {
    case syntax(JSONSyntaxProblem, at: Int)
    /// One of the parser's limits was reached (`JSONLimits`).
    case limit(JSONLimitKind, at: Int)
    /// A required member is absent.
    case missing(key: String)
    /// A member has the wrong JSON type.
    case wrongType(key: String, expected: JSONType, found: JSONType)
    /// A member has the right type but a value the reader refuses
    /// (bad base64, not a UUID, out of range...).
    case invalidValue(key: String, reason: String)

    public var description: String {
        switch self {
        case .syntax(let problem, let offset): return "JSON syntax: \(problem) at byte \(offset)"
        case .limit(let kind, let offset): return "JSON limit: \(kind) at byte \(offset)"
        case .missing(let key): return "JSON: missing \"\(key)\""
        case .wrongType(let key, let expected, let found): return "JSON: \"\(key)\" is a \(found), expected a \(expected)"
        case .invalidValue(let key, let reason): return "JSON: \"\(key)\" \(reason)"
        }
    }
}

public enum JSONSyntaxProblem: Equatable, CustomStringConvertible {
    case unexpectedEnd
    case unexpectedByte(UInt8)
    case invalidLiteral
    case invalidNumber
    case invalidEscape
    case controlCharacterInString
    case invalidUTF8
    /// A \uD800-\uDFFF escape not forming a high + low pair.
    case unpairedSurrogate
    case trailingBytes

    public var description: String {
        switch self {
        case .unexpectedEnd: return "unexpected end"
        case .unexpectedByte(let b): return "unexpected byte 0x" + hex(b, digits: 2)
        case .invalidLiteral: return "invalid literal"
        case .invalidNumber: return "invalid number"
        case .invalidEscape: return "invalid escape"
        case .controlCharacterInString: return "control character in string"
        case .invalidUTF8: return "invalid UTF-8"
        case .unpairedSurrogate: return "unpaired surrogate escape"
        case .trailingBytes: return "bytes after the value"
        }
    }
}

public enum JSONLimitKind: Equatable, CustomStringConvertible {
    case size, depth, elements

    public var description: String {
        switch self {
        case .size: return "input too large"
        case .depth: return "nested too deeply"
        case .elements: return "too many values"
        }
    }
}
