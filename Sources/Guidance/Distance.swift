/// A distance found in instruction text: "350 m", "1,5 km", "0.3 mi",
/// "200メートル", "٢٠٠ م", "km 12".
public struct Distance: Equatable {
    /// The number as written, with its decimal separator ("1,5").
    public var value: String
    public var unit: DistanceUnit
    /// Rounded to the metre.
    public var metres: Int
    /// Where it is in the original text (UTF-8 offsets), with the words
    /// that go with it ("In 350 m", "200 m先"), for cutting it out.
    var range: Range<Int>

    public init(value: String, unit: DistanceUnit, metres: Int) {
        self.value = value
        self.unit = unit
        self.metres = metres
        range = 0..<0
    }

    public static func == (a: Distance, b: Distance) -> Bool {
        a.value == b.value && a.unit == b.unit && a.metres == b.metres
    }

    /// Numbers longer than this are no distance (a phone number, garbage).
    static let maximumDigits = 7

    /// The first distance in `text`, or nil.
    public static func find(in text: String) -> Distance? {
        find(in: FoldedText(text))
    }

    /// A number followed by a unit ("350 m", "200米"), or else preceded by
    /// one ("km 12"). A number stuck to letters before it ("A9", "I-280"
    /// counts, the hyphen is a blank) is a road, not a distance.
    static func find(in text: FoldedText) -> Distance? {
        text.withBytes { find(in: text, $0) }
    }

    private static func find(in text: FoldedText, _ b: UnsafeBufferPointer<UInt8>) -> Distance? {
        var i = 0
        var fallback: Distance?
        while i < b.count {
            guard b[i].isDigit || Number.vulgarFraction(b, at: i) != nil,
                  i == 0 || !(b[i - 1].isWordByte || b[i - 1] == 0x2E || b[i - 1] == 0x2C || b[i - 1] == 0x2F) else { i += 1; continue }
            guard let number = Number(b, at: i) else {
                i += 1
                while i < b.count && (b[i].isDigit || b[i] == 0x2F) { i += 1 }
                continue
            }
            if let (unit, end) = unitAfter(b, at: number.end) {
                return make(text, b, number, unit, start: i, end: end)
            }
            if fallback == nil, let (unit, start) = unitBefore(b, at: i), number.end >= b.count || !b[number.end].isWordByte {
                fallback = make(text, b, number, unit, start: start, end: number.end)
            }
            i = number.end
        }
        return fallback
    }

    private static func make(_ text: FoldedText, _ b: UnsafeBufferPointer<UInt8>, _ number: Number, _ unit: DistanceUnit,
                             start: Int, end: Int) -> Distance {
        var d = Distance(value: number.text, unit: unit, metres: Int(number.value * unit.metres + 0.5))
        // Widen over "in", "dans", "بعد" before and "先", "后", "sonra" after.
        var s = start, e = end
        let p = CompiledPhrases.shared
        for w in p.distanceBefore {
            let n = w.bytes.count
            if s >= n + 1 && b[s - 1] == 0x20 && same(b, s - n - 1, w.bytes)
                && (s - n - 1 == 0 || !b[s - n - 2].isWordByte || !w.wholeStart) {
                s -= n + 1
                break
            }
        }
        var at = e
        if at < b.count && b[at] == 0x20 { at += 1 }
        let after = p.distanceAfter
        if let id = p.distanceAfterIndex.first(at: at, of: b, where: { id, end in
            end == b.count || !b[end].isWordByte || !after[id].wholeEnd
        }) {
            e = at + after[id].bytes.count
        }
        d.range = text.sourceRange(s, e)
        return d
    }

    private static func unitAfter(_ b: UnsafeBufferPointer<UInt8>, at j: Int) -> (DistanceUnit, Int)? {
        var k = j
        if k < b.count && b[k] == 0x20 { k += 1 }
        guard k < b.count else { return nil }
        // Only the words that start with the byte found are tried, longest
        // first, where they lie in one flat array.
        let all = UnitWord.all
        let found = UnitWord.byFirst.first(at: k, of: b) { id, end in
            all[id].runsOn || end >= b.count || isWordEnd(b, end)
        }
        guard let id = found else { return nil }
        return (all[id].unit, k + all[id].bytes.count)
    }

    private static func unitBefore(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> (DistanceUnit, Int)? {
        var k = i
        if k > 0 && b[k - 1] == 0x20 { k -= 1 }
        for w in UnitWord.all where !w.runsOn {
            let n = w.bytes.count
            guard k >= n, same(b, k - n, w.bytes) else { continue }
            if k - n > 0 && !isWordEnd(b, k - n - 1) { continue }
            return (w.unit, k - n)
        }
        return nil
    }

    /// `word` is at `at` of `b` (which has room for it).
    private static func same(_ b: UnsafeBufferPointer<UInt8>, _ at: Int, _ word: [UInt8]) -> Bool {
        for k in 0..<word.count where b[at + k] != word[k] { return false }
        return true
    }

    /// The byte at `i` ends a word: a blank, punctuation, or another script.
    /// Letters of the unit's own alphabet (ASCII, Cyrillic, Arabic) go on.
    private static func isWordEnd(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Bool {
        let c = b[i]
        if c.isWordByte { return false }
        // Continuation bytes and lead bytes of two-byte letters (Latin
        // kept, Greek, Cyrillic, Arabic): the word goes on.
        if c >= 0x80 && c < 0xE0 { return false }
        return true
    }
}

/// A decimal number as written: "350", "1,5", "0.25", "1,200" (thousands),
/// and the fractions of miles: "1/2", "½", "1½".
struct Number {
    var text: String
    var value: Double
    var end: Int

    init?(_ b: UnsafeBufferPointer<UInt8>, at i: Int) {
        var j = i
        var whole = 0.0, digits = 0
        while j < b.count && b[j].isDigit {
            whole = whole * 10 + Double(b[j] - 0x30)
            digits += 1
            j += 1
        }
        guard digits <= Distance.maximumDigits else { return nil }
        var value = whole
        // "1/2", "3/4": a fraction of small whole numbers.
        if digits > 0 && digits <= 2 && j + 1 < b.count && b[j] == 0x2F && b[j + 1].isDigit {
            var k = j + 1, denominator = 0.0
            while k < b.count && b[k].isDigit && denominator < 100 {
                denominator = denominator * 10 + Double(b[k] - 0x30)
                k += 1
            }
            if k < b.count && b[k].isDigit || denominator == 0 { return nil }
            self.value = whole / denominator
            text = String(decoding: UnsafeBufferPointer(rebasing: b[i..<k]), as: UTF8.self)
            end = k
            return
        }
        // "½", "1½".
        if let f = Number.vulgarFraction(b, at: j) {
            self.value = whole + f
            end = j + 2
            text = String(decoding: UnsafeBufferPointer(rebasing: b[i..<end]), as: UTF8.self)
            return
        }
        guard digits > 0 else { return nil }
        // A separator and more digits: three digits after a comma or dot
        // and nothing more are thousands ("1,200 ft"), else decimals.
        if j + 1 < b.count && (b[j] == 0x2E || b[j] == 0x2C) && b[j + 1].isDigit {
            var k = j + 1, fraction = 0.0, scale = 1.0, n = 0
            while k < b.count && b[k].isDigit && n < Distance.maximumDigits {
                fraction = fraction * 10 + Double(b[k] - 0x30)
                scale *= 10
                n += 1
                k += 1
            }
            if k < b.count && b[k].isDigit { return nil }
            if n == 3 && whole >= 1 && !(k < b.count && (b[k] == 0x2E || b[k] == 0x2C) && k + 1 < b.count && b[k + 1].isDigit) {
                value = whole * 1000 + fraction
            } else {
                value = whole + fraction / scale
            }
            j = k
        }
        self.value = value
        text = String(decoding: UnsafeBufferPointer(rebasing: b[i..<j]), as: UTF8.self)
        end = j
    }

    /// ¼, ½ or ¾ (two UTF-8 bytes) at `i`.
    static func vulgarFraction(_ b: UnsafeBufferPointer<UInt8>, at i: Int) -> Double? {
        guard i + 1 < b.count, b[i] == 0xC2 else { return nil }
        switch b[i + 1] {
        case 0xBC: return 0.25
        case 0xBD: return 0.5
        case 0xBE: return 0.75
        default: return nil
        }
    }
}
