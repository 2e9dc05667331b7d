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
        let b = text.bytes
        let p = CompiledPhrases.shared
        if earliest(p.roundabout, in: b) != nil {
            return ManeuverReading(maneuver: .roundabout, roundaboutExit: exitNumber(b, p))
        }
        var best: (at: Int, maneuver: Maneuver)?
        // In order of precedence at equal positions.
        let candidates: [([Phrase], Maneuver)] = [
            (p.arrive, .arrive), (p.uTurn, .uTurn),
            (p.sharpLeft, .sharpLeft), (p.sharpRight, .sharpRight),
            (p.slightLeft, .slightLeft), (p.slightRight, .slightRight),
            (p.left, .left), (p.right, .right),
            (p.merge, .merge), (p.straight, .straight),
        ]
        for (phrases, maneuver) in candidates {
            if let at = earliest(phrases, in: b), at < (best?.at ?? Int.max) { best = (at, maneuver) }
        }
        // An exit named with its side wins a tie ("pegue a saída à direita").
        if let at = earliest(p.exit, in: b), at <= (best?.at ?? Int.max) {
            let left = earliest(p.leftSide, in: b), right = earliest(p.rightSide, in: b)
            switch (left, right) {
            case (.some(let l), .some(let r)): best = (at, l < r ? .exitLeft : .exitRight)
            case (.some, nil): best = (at, .exitLeft)
            case (nil, .some): best = (at, .exitRight)
            case (nil, nil): break
            }
        }
        return ManeuverReading(maneuver: best?.maneuver ?? .neutral)
    }

    /// Exits beyond this are not believed (a number that is not an exit).
    static let maximumExit = 12

    /// The roundabout exit: a number with an ordinal ending ("2nd", "2.",
    /// "2ª", "2番目", "第2") or after the word exit ("المخرج ٣"), or an ordinal word ("second", "zweite",
    /// "الثاني"), whichever comes first.
    static func exitNumber(_ b: [UInt8], _ p: CompiledPhrases) -> Int? {
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
        for (n, words) in p.ordinals.enumerated() {
            if let at = earliest(words, in: b), at < (best?.at ?? Int.max) { best = (at, n + 1) }
        }
        return best?.exit
    }

    private static func hasOrdinalSuffix(_ b: [UInt8], at j: Int, _ p: CompiledPhrases) -> Bool {
        for s in p.ordinalSuffixes {
            if startsWith(b, s, at: j) { return true }
            // Scripts without spaces may still have one after the digits ("2 番目").
            if !(s.bytes.first?.isWordByte ?? true) && s.bytes.first != 0x2E && j < b.count && b[j] == 0x20
                && startsWith(b, s, at: j + 1) { return true }
        }
        return false
    }

    private static func hasOrdinalPrefix(_ b: [UInt8], before i: Int, _ prefixes: [Phrase]) -> Bool {
        for s in prefixes {
            let n = s.bytes.count
            if i >= n && Array(b[(i - n)..<i]) == s.bytes { return true }
            if i >= n + 1 && b[i - 1] == 0x20 && Array(b[(i - n - 1)..<(i - 1)]) == s.bytes { return true }
        }
        return false
    }

    /// `phrase` at exactly `at`, with its word boundary at the end; a
    /// decimal ("2.5") is no ordinal.
    private static func startsWith(_ b: [UInt8], _ phrase: Phrase, at: Int) -> Bool {
        let n = phrase.bytes.count
        guard n > 0, at + n <= b.count else { return false }
        for k in 0..<n where b[at + k] != phrase.bytes[k] { return false }
        if at + n < b.count {
            let next = b[at + n]
            if phrase.wholeEnd && next.isWordByte { return false }
            if phrase.bytes == [0x2E] && next.isDigit { return false }
        }
        return true
    }
}

/// Every table's phrases, folded once and pooled by what they mean.
final class CompiledPhrases {
    static let shared = CompiledPhrases(PhraseTable.all)

    let arrive, uTurn, roundabout, sharpLeft, sharpRight, slightLeft, slightRight, left, right: [Phrase]
    let merge, straight, exit, leftSide, rightSide, ordinalSuffixes, ordinalPrefixes: [Phrase]
    let distanceBefore, distanceAfter: [Phrase]
    /// Index n: the words of exit n + 1.
    let ordinals: [[Phrase]]

    init(_ tables: [PhraseTable]) {
        func pool(_ get: (PhraseTable) -> [String]) -> [Phrase] {
            var out: [Phrase] = []
            for t in tables { for s in get(t) { out.append(Phrase(s)) } }
            return out
        }
        arrive = pool { $0.arrive }
        uTurn = pool { $0.uTurn }
        roundabout = pool { $0.roundabout }
        sharpLeft = pool { $0.sharpLeft }
        sharpRight = pool { $0.sharpRight }
        slightLeft = pool { $0.slightLeft }
        slightRight = pool { $0.slightRight }
        left = pool { $0.left }
        right = pool { $0.right }
        merge = pool { $0.merge }
        straight = pool { $0.straight }
        exit = pool { $0.exit }
        leftSide = pool { $0.leftSide }
        rightSide = pool { $0.rightSide }
        ordinalSuffixes = pool { $0.ordinalSuffixes }
        ordinalPrefixes = pool { $0.ordinalPrefixes }
        distanceBefore = pool { $0.distanceBefore }
        distanceAfter = pool { $0.distanceAfter }
        var ords: [[Phrase]] = []
        for t in tables {
            for (n, words) in t.ordinals.enumerated() {
                while ords.count <= n { ords.append([]) }
                for w in words { ords[n].append(Phrase(w)) }
            }
        }
        ordinals = ords
    }
}
