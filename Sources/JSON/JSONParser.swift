/// A strict RFC 8259 parser over UTF-8 bytes: one value, optional white
/// space around it, nothing after it. Invalid UTF-8, unpaired surrogate
/// escapes, leading zeros, control characters in strings and trailing
/// garbage are refused with the byte offset where the problem is.
public struct JSONParser {
    private let input: [UInt8]
    private let limits: JSONLimits
    private var index = 0
    private var elements = 0

    public static func parse(_ bytes: [UInt8], limits: JSONLimits = .standard) throws(JSONError) -> JSONValue {
        guard bytes.count <= limits.maxSize else { throw .limit(.size, at: limits.maxSize) }
        var parser = JSONParser(input: bytes, limits: limits)
        parser.skipSpace()
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == bytes.count else { throw .syntax(.trailingBytes, at: parser.index) }
        return value
    }

    private init(input: [UInt8], limits: JSONLimits) {
        self.input = input
        self.limits = limits
    }

    private mutating func skipSpace() {
        while index < input.count {
            switch input[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek() throws(JSONError) -> UInt8 {
        guard index < input.count else { throw .syntax(.unexpectedEnd, at: index) }
        return input[index]
    }

    private mutating func expect(_ byte: UInt8) throws(JSONError) {
        let found = try peek()
        guard found == byte else { throw .syntax(.unexpectedByte(found), at: index) }
        index += 1
    }

    private mutating func count() throws(JSONError) {
        elements += 1
        guard elements <= limits.maxElements else { throw .limit(.elements, at: index) }
    }

    private mutating func value(depth: Int) throws(JSONError) -> JSONValue {
        try count()
        let first = try peek()
        switch first {
        case 0x7B: return try object(depth: depth + 1)
        case 0x5B: return try array(depth: depth + 1)
        case 0x22: return .string(try string())
        case 0x74: try literal("true"); return .bool(true)
        case 0x66: try literal("false"); return .bool(false)
        case 0x6E: try literal("null"); return .null
        case 0x2D, 0x30...0x39: return .number(try number())
        default: throw .syntax(.unexpectedByte(first), at: index)
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONError) {
        let start = index
        let length = word.utf8CodeUnitCount
        guard index + length <= input.count else { throw .syntax(.invalidLiteral, at: start) }
        let pointer = word.utf8Start
        for i in 0..<length where input[index + i] != pointer[i] {
            throw .syntax(.invalidLiteral, at: start)
        }
        index += length
    }

    private mutating func object(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= limits.maxDepth else { throw .limit(.depth, at: index) }
        index += 1  // {
        var members: [JSONMember] = []
        skipSpace()
        if try peek() == 0x7D { index += 1; return .object(members) }
        while true {
            skipSpace()
            guard try peek() == 0x22 else { throw .syntax(.unexpectedByte(input[index]), at: index) }
            let key = try string()
            skipSpace()
            try expect(0x3A)
            skipSpace()
            members.append(JSONMember(key, try value(depth: depth)))
            skipSpace()
            let next = try peek()
            index += 1
            if next == 0x7D { return .object(members) }
            guard next == 0x2C else { throw .syntax(.unexpectedByte(next), at: index - 1) }
        }
    }

    private mutating func array(depth: Int) throws(JSONError) -> JSONValue {
        guard depth <= limits.maxDepth else { throw .limit(.depth, at: index) }
        index += 1  // [
        var items: [JSONValue] = []
        skipSpace()
        if try peek() == 0x5D { index += 1; return .array(items) }
        while true {
            skipSpace()
            items.append(try value(depth: depth))
            skipSpace()
            let next = try peek()
            index += 1
            if next == 0x5D { return .array(items) }
            guard next == 0x2C else { throw .syntax(.unexpectedByte(next), at: index - 1) }
        }
    }

    private mutating func number() throws(JSONError) -> JSONNumber {
        let start = index
        if input[index] == 0x2D { index += 1 }
        // Integer part: 0, or a digit 1-9 followed by digits.
        guard index < input.count, isDigit(input[index]) else { throw .syntax(.invalidNumber, at: start) }
        if input[index] == 0x30 {
            index += 1
        } else {
            while index < input.count, isDigit(input[index]) { index += 1 }
        }
        if index < input.count, input[index] == 0x2E {
            index += 1
            guard index < input.count, isDigit(input[index]) else { throw .syntax(.invalidNumber, at: start) }
            while index < input.count, isDigit(input[index]) { index += 1 }
        }
        if index < input.count, input[index] == 0x45 || input[index] == 0x65 {
            index += 1
            if index < input.count, input[index] == 0x2B || input[index] == 0x2D { index += 1 }
            guard index < input.count, isDigit(input[index]) else { throw .syntax(.invalidNumber, at: start) }
            while index < input.count, isDigit(input[index]) { index += 1 }
        }
        return JSONNumber(validated: String(decoding: input[start..<index], as: UTF8.self))
    }

    private func isDigit(_ b: UInt8) -> Bool { b >= 0x30 && b <= 0x39 }

    private mutating func string() throws(JSONError) -> String {
        index += 1  // opening quote
        var out: [UInt8] = []
        while true {
            guard index < input.count else { throw .syntax(.unexpectedEnd, at: index) }
            let byte = input[index]
            switch byte {
            case 0x22:
                index += 1
                return String(decoding: out, as: UTF8.self)
            case 0x5C:
                let scalar = try escape()
                appendUTF8(scalar, to: &out)
            case 0x00..<0x20:
                throw .syntax(.controlCharacterInString, at: index)
            case 0x20..<0x80:
                out.append(byte)
                index += 1
            default:
                let length = try utf8SequenceLength(at: index)
                out.append(contentsOf: input[index..<index + length])
                index += length
            }
        }
    }

    /// One escape, `index` on the backslash; a surrogate pair is two.
    private mutating func escape() throws(JSONError) -> UInt32 {
        let start = index
        guard index + 1 < input.count else { throw .syntax(.unexpectedEnd, at: input.count) }
        let kind = input[index + 1]
        index += 2
        switch kind {
        case 0x22: return 0x22
        case 0x5C: return 0x5C
        case 0x2F: return 0x2F
        case 0x62: return 0x08
        case 0x66: return 0x0C
        case 0x6E: return 0x0A
        case 0x72: return 0x0D
        case 0x74: return 0x09
        case 0x75:
            let unit = try hex4(escapeStart: start)
            switch unit {
            case 0xD800...0xDBFF:
                // Must be followed by \u and a low surrogate.
                guard index + 1 < input.count, input[index] == 0x5C, input[index + 1] == 0x75 else {
                    throw .syntax(.unpairedSurrogate, at: start)
                }
                index += 2
                let low = try hex4(escapeStart: start)
                guard (0xDC00...0xDFFF).contains(low) else { throw .syntax(.unpairedSurrogate, at: start) }
                return 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            case 0xDC00...0xDFFF:
                throw .syntax(.unpairedSurrogate, at: start)
            default:
                return unit
            }
        default:
            throw .syntax(.invalidEscape, at: start)
        }
    }

    private mutating func hex4(escapeStart: Int) throws(JSONError) -> UInt32 {
        guard index + 4 <= input.count else { throw .syntax(.invalidEscape, at: escapeStart) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = input[index]
            let nibble: UInt32
            switch b {
            case 0x30...0x39: nibble = UInt32(b - 0x30)
            case 0x41...0x46: nibble = UInt32(b - 0x41 + 10)
            case 0x61...0x66: nibble = UInt32(b - 0x61 + 10)
            default: throw .syntax(.invalidEscape, at: escapeStart)
            }
            value = value << 4 | nibble
            index += 1
        }
        return value
    }

    /// The length of the well-formed UTF-8 sequence at `at` (Unicode 15
    /// table 3-7: no overlong forms, no surrogates, nothing past U+10FFFF).
    private func utf8SequenceLength(at start: Int) throws(JSONError) -> Int {
        let lead = input[start]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw .syntax(.invalidUTF8, at: start)
        }
        guard start + length <= input.count else { throw .syntax(.invalidUTF8, at: start) }
        let second = input[start + 1]
        guard second >= low, second <= high else { throw .syntax(.invalidUTF8, at: start) }
        for i in 2..<max(2, length) {
            let b = input[start + i]
            guard b >= 0x80, b <= 0xBF else { throw .syntax(.invalidUTF8, at: start) }
        }
        return length
    }
}

/// Appends one Unicode scalar value (never a surrogate) as UTF-8.
func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
    switch scalar {
    case 0..<0x80:
        out.append(UInt8(scalar))
    case 0x80..<0x800:
        out.append(UInt8(0xC0 | scalar >> 6))
        out.append(UInt8(0x80 | scalar & 0x3F))
    case 0x800..<0x10000:
        out.append(UInt8(0xE0 | scalar >> 12))
        out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
        out.append(UInt8(0x80 | scalar & 0x3F))
    default:
        out.append(UInt8(0xF0 | scalar >> 18))
        out.append(UInt8(0x80 | scalar >> 12 & 0x3F))
        out.append(UInt8(0x80 | scalar >> 6 & 0x3F))
        out.append(UInt8(0x80 | scalar & 0x3F))
    }
}
