/// Typed reading of object members. Strict on types (a string where a
/// number is expected is an error naming the key), tolerant of members it
/// is not asked about. An absent optional and an explicit `null` are the same.
extension JSONValue {
    /// The first member named `key`, when this is an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        for member in members where member.key == key { return member.value }
        return nil
    }

    private func present(_ key: String) -> JSONValue? {
        guard let value = self[key] else { return nil }
        if case .null = value { return nil }
        return value
    }

    private func required(_ key: String) throws(JSONError) -> JSONValue {
        guard let value = present(key) else { throw .missing(key: key) }
        return value
    }

    public func optionalString(_ key: String) throws(JSONError) -> String? {
        guard let value = present(key) else { return nil }
        guard case .string(let s) = value else { throw .wrongType(key: key, expected: .string, found: value.type) }
        return s
    }

    public func string(_ key: String) throws(JSONError) -> String {
        guard let s = try optionalString(key) else { throw .missing(key: key) }
        return s
    }

    public func optionalBool(_ key: String) throws(JSONError) -> Bool? {
        guard let value = present(key) else { return nil }
        guard case .bool(let b) = value else { throw .wrongType(key: key, expected: .bool, found: value.type) }
        return b
    }

    public func optionalNumber(_ key: String) throws(JSONError) -> JSONNumber? {
        guard let value = present(key) else { return nil }
        guard case .number(let n) = value else { throw .wrongType(key: key, expected: .number, found: value.type) }
        return n
    }

    /// An integer member; a fraction or a value beyond Int is refused.
    public func optionalInt(_ key: String) throws(JSONError) -> Int? {
        guard let n = try optionalNumber(key) else { return nil }
        guard let i = n.int else { throw .invalidValue(key: key, reason: "is not an integer: \(n.text)") }
        return i
    }

    public func int(_ key: String) throws(JSONError) -> Int {
        guard let i = try optionalInt(key) else { throw .missing(key: key) }
        return i
    }

    public func optionalDouble(_ key: String) throws(JSONError) -> Double? {
        try optionalNumber(key)?.double
    }

    public func double(_ key: String) throws(JSONError) -> Double {
        guard let d = try optionalDouble(key) else { throw .missing(key: key) }
        return d
    }

    public func optionalObject(_ key: String) throws(JSONError) -> JSONValue? {
        guard let value = present(key) else { return nil }
        guard case .object = value else { throw .wrongType(key: key, expected: .object, found: value.type) }
        return value
    }

    public func object(_ key: String) throws(JSONError) -> JSONValue {
        guard let value = try optionalObject(key) else { throw .missing(key: key) }
        return value
    }

    public func optionalArray(_ key: String) throws(JSONError) -> [JSONValue]? {
        guard let value = present(key) else { return nil }
        guard case .array(let items) = value else { throw .wrongType(key: key, expected: .array, found: value.type) }
        return items
    }

    /// A base64 member (Data as JSONEncoder writes it).
    public func optionalBase64(_ key: String) throws(JSONError) -> [UInt8]? {
        guard let text = try optionalString(key) else { return nil }
        guard let bytes = Base64.decode(text) else { throw .invalidValue(key: key, reason: "is not base64") }
        return bytes
    }

    public func base64(_ key: String) throws(JSONError) -> [UInt8] {
        guard let bytes = try optionalBase64(key) else { throw .missing(key: key) }
        return bytes
    }

    /// Whether this is an object (what every message must be).
    public var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}
