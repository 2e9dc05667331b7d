/// Readers for the kinds of values the file holds. Each returns the value,
/// or nil; the key table words the complaint.
enum ConfigValues {
    static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "yes", "true", "on", "1": return true
        case "no", "false", "off", "0": return false
        default: return nil
        }
    }

    static func render(_ b: Bool) -> String { b ? "yes" : "no" }

    /// `900`, `900s`, `15m`, `1h`: whole seconds.
    static func seconds(_ text: String) -> Int64? {
        var digits = Substring(text.lowercased())
        var unit: Int64 = 1
        if let last = digits.last, !last.isNumber {
            switch last {
            case "s": unit = 1
            case "m": unit = 60
            case "h": unit = 3600
            default: return nil
            }
            digits = digits.dropLast()
            while let l = digits.last, l == " " { digits = digits.dropLast() }
        }
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), digits.count <= 9,
              let n = Int64(digits) else { return nil }
        return n * unit
    }

    static func renderSeconds(_ s: Int64) -> String {
        if s % 3600 == 0 { return "\(s / 3600)h" }
        if s % 60 == 0 { return "\(s / 60)m" }
        return "\(s)s"
    }

    /// Comma-separated; blanks around items and empty items (a trailing
    /// comma) ignored; an empty value is an empty list.
    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { trim($0) }.filter { !$0.isEmpty }
    }

    static func trim(_ s: Substring) -> String {
        var t = s
        while let f = t.first, f == " " || f == "\t" { t = t.dropFirst() }
        while let l = t.last, l == " " || l == "\t" { t = t.dropLast() }
        return String(t)
    }

    /// An absolute path without control characters.
    static func isPath(_ text: String) -> Bool {
        text.hasPrefix("/") && !text.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }

    /// A bundle identifier: letters, digits, dots, hyphens, underscores.
    static func isAppIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && text.unicodeScalars.allSatisfy {
            ($0.value >= 0x30 && $0.value <= 0x39) || ($0.value >= 0x41 && $0.value <= 0x5A)
                || ($0.value >= 0x61 && $0.value <= 0x7A) || $0 == "." || $0 == "-" || $0 == "_"
        }
    }

    /// Quotes a value that would not read back as itself: leading or
    /// trailing blanks, a comment sign after a blank, a leading quote.
    static func quoteIfNeeded(_ text: String) -> String {
        let needs = text.first == " " || text.first == "\t" || text.last == " " || text.last == "\t"
            || text.first == "\"" || text.first == "#" || hasComment(text)
        return needs ? "\"" + text + "\"" : text
    }

    static func hasComment(_ text: String) -> Bool {
        var previousBlank = false
        for c in text {
            if c == "#" && previousBlank { return true }
            previousBlank = c == " " || c == "\t"
        }
        return false
    }
}

/// The closest of `candidates` to `word` within two edits, for "did you mean".
func closest(_ word: String, among candidates: [String]) -> String? {
    var best: (String, Int)?
    for c in candidates {
        let d = editDistance(Array(word.unicodeScalars), Array(c.unicodeScalars))
        if d <= 2 && d < (best?.1 ?? Int.max) { best = (c, d) }
    }
    return best?.0
}

private func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}
