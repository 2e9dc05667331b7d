/// The maneuver and the roundabout exit of one instruction, from its words
/// in any language of `PhraseTable.all`.
public struct ManeuverReading: Equatable {
    public var maneuver: Maneuver
    /// The exit to take at a roundabout (1 = first), when the text names it.
    public var roundaboutExit: Int?

    public init(maneuver: Maneuver, roundaboutExit: Int? = nil) {
        self.maneuver = maneuver
        self.roundaboutExit = roundaboutExit
    }
}

/// Reads the maneuver from instruction text.
///
/// The phrase that comes first in the text decides: "Turn left onto Main St.
/// Destination will be on the right" is a left turn, "Destination will be on
/// the left" an arrival (a direction said in passing is no turn: the tables
/// hold turn phrases, not bare direction words). When two phrases start at
/// the same place the more specific one wins ("sharp left" before "left").
/// A roundabout wins over everything: its exits and turns are its own. An
/// exit whose side is not named gets no arrow (the side depends on the
/// country). Text with none of the phrases is `neutral`.
public enum ManeuverClassifier {
    public static func classify(_ text: String) -> ManeuverReading {
        classify(FoldedText(text))
    }

    static func classify(_ text: FoldedText) -> ManeuverReading {
        classify(text, text.withBytes { CompiledPhrases.shared.index.sightings($0) })
    }

    /// `seen`: where each meaning's phrases are first found in `text`.
    static func classify(_ text: FoldedText, _ seen: [Int]) -> ManeuverReading {
        let p = CompiledPhrases.shared
        func at(_ m: Meaning) -> Int { seen[m.rawValue] }
        if at(.roundabout) != Int.max {
            return ManeuverReading(maneuver: .roundabout, roundaboutExit: text.withBytes { exitNumber($0, seen, p) })
        }
        var best: (at: Int, maneuver: Maneuver)?
        // In order of precedence at equal positions.
        let candidates: [(Meaning, Maneuver)] = [
            (.arrive, .arrive), (.uTurn, .uTurn), (.sharpLeft, .sharpLeft), (.sharpRight, .sharpRight),
            (.slightLeft, .slightLeft), (.slightRight, .slightRight), (.left, .left), (.right, .right),
            (.merge, .merge), (.straight, .straight),
        ]
        for (meaning, maneuver) in candidates where at(meaning) < (best?.at ?? Int.max) {
            best = (at(meaning), maneuver)
        }
        // An exit named with its side wins a tie ("pegue a saída à direita").
        if at(.exit) != Int.max && at(.exit) <= (best?.at ?? Int.max) {
            let left = at(.leftSide), right = at(.rightSide)
            if left != right { best = (at(.exit), left < right ? .exitLeft : .exitRight) }
        }
        return ManeuverReading(maneuver: best?.maneuver ?? .neutral)
    }

    /// Exits beyond this are not believed (a number that is not an exit).
    static let maximumExit = 12

    /// The roundabout exit: a number with an ordinal ending ("2nd", "2.",
    /// "2ª", "2番目", "第2") or after the word exit ("المخرج ٣"), or an ordinal word ("second", "zweite",
    /// "الثاني"), whichever comes first.
    static func exitNumber(_ b: UnsafeBufferPointer<UInt8>, _ seen: [Int], _ p: CompiledPhrases) -> Int? {
        var best: (at: Int, exit: Int)?
        var i = 0
        while i < b.count {
            guard b[i].isDigit, i == 0 || !b[i - 1].isWordByte else { i += 1; continue }
            var j = i, value = 0
            while j < b.count && b[j].isDigit {
                value = min(value * 10 + Int(b[j] - 0x30), 1000)
                j += 1
            }
            if value >= 1 && value <= maximumExit
                && (hasOrdinalSuffix(b, at: j, p) || hasOrdinalPrefix(b, before: i, p.ordinalPrefixes)
                    || (hasOrdinalPrefix(b, before: i, p.exit) && (j == b.count || !b[j].isWordByte))) {
                best = (i, value)
                break
            }
            i = j
        }
        for n in 1...Meaning.maximumOrdinal {
            let at = seen[Meaning.ordinal.rawValue + n - 1]
            if at < (best?.at ?? Int.max) { best = (at, n) }
        }
        return best?.exit
    }

    private static func hasOrdinalSuffix(_ b: UnsafeBufferPointer<UInt8>, at j: Int, _ p: CompiledPhrases) -> Bool {
        for s in p.ordinalSuffixes {
            if startsWith(b, s, at: j) { return true }
            // Scripts without spaces may still have one after the digits ("2 番目").
            if !(s.bytes.first?.isWordByte ?? true) && s.bytes.first != 0x2E && j < b.count && b[j] == 0x20
                && startsWith(b, s, at: j + 1) { return true }
        }
        return false
    }

    private static func hasOrdinalPrefix(_ b: UnsafeBufferPointer<UInt8>, before i: Int, _ prefixes: [Phrase]) -> Bool {
        for s in prefixes {
            let n = s.bytes.count
            if i >= n && startsWith(b, s, at: i - n) { return true }
            if i >= n + 1 && b[i - 1] == 0x20 && startsWith(b, s, at: i - n - 1) { return true }
        }
        return false
    }

    /// `phrase` at exactly `at`, with its word boundary at the end; a
    /// decimal ("2.5") is no ordinal.
    private static func startsWith(_ b: UnsafeBufferPointer<UInt8>, _ phrase: Phrase, at: Int) -> Bool {
        let n = phrase.bytes.count
        guard n > 0, at + n <= b.count else { return false }
        for k in 0..<n where b[at + k] != phrase.bytes[k] { return false }
        if at + n < b.count {
            let next = b[at + n]
            if phrase.wholeEnd && next.isWordByte { return false }
            if n == 1 && phrase.bytes[0] == 0x2E && next.isDigit { return false }
        }
        return true
    }
}

/// Every table's phrases, folded once: the index of the maneuver words,
/// and the short lists read at one place (around a number).
final class CompiledPhrases {
    static let shared = CompiledPhrases(PhraseTable.all)

    let index: PhraseIndex
    let exit, ordinalSuffixes, ordinalPrefixes, distanceBefore, distanceAfter: [Phrase]
    /// `distanceAfter` by first byte: the first in the list that follows a
    /// distance is the one found first here.
    let distanceAfterIndex: FirstByteIndex

    init(_ tables: [PhraseTable]) {
        func pool(_ get: (PhraseTable) -> [String]) -> [Phrase] {
            var out: [Phrase] = []
            for t in tables { for s in get(t) { out.append(Phrase(s)) } }
            return out
        }
        exit = pool { $0.exit }
        ordinalSuffixes = pool { $0.ordinalSuffixes }
        ordinalPrefixes = pool { $0.ordinalPrefixes }
        distanceBefore = pool { $0.distanceBefore }
        distanceAfter = pool { $0.distanceAfter }
        distanceAfterIndex = FirstByteIndex(distanceAfter.map { $0.bytes })
        var entries: [(Phrase, Int)] = []
        func add(_ meaning: Meaning, _ get: (PhraseTable) -> [String]) {
            for t in tables { for s in get(t) { entries.append((Phrase(s), meaning.rawValue)) } }
        }
        add(.arrive) { $0.arrive }
        add(.uTurn) { $0.uTurn }
        add(.roundabout) { $0.roundabout }
        add(.sharpLeft) { $0.sharpLeft }
        add(.sharpRight) { $0.sharpRight }
        add(.slightLeft) { $0.slightLeft }
        add(.slightRight) { $0.slightRight }
        add(.left) { $0.left }
        add(.right) { $0.right }
        add(.merge) { $0.merge }
        add(.straight) { $0.straight }
        add(.exit) { $0.exit }
        add(.leftSide) { $0.leftSide }
        add(.rightSide) { $0.rightSide }
        for t in tables {
            for (n, words) in t.ordinals.enumerated() where n < Meaning.maximumOrdinal {
                for w in words { entries.append((Phrase(w), Meaning.ordinal.rawValue + n)) }
            }
        }
        index = PhraseIndex(entries)
    }
}
