/// A unit of the distances navigation apps write, and its words in the
/// languages of `PhraseTable.all`.
public enum DistanceUnit: Equatable, CaseIterable {
    case metres, kilometres, feet, miles, yards

    /// The symbol the screen shows.
    public var symbol: String {
        switch self {
        case .metres: return "m"
        case .kilometres: return "km"
        case .feet: return "ft"
        case .miles: return "mi"
        case .yards: return "yd"
        }
    }

    /// Metres in one unit.
    public var metres: Double {
        switch self {
        case .metres: return 1
        case .kilometres: return 1000
        case .feet: return 0.3048
        case .miles: return 1609.344
        case .yards: return 0.9144
        }
    }

    /// How the unit is written. Words of alphabets with spaces must stand
    /// alone ("m", "metros", "км", "متر"); in Chinese, Japanese and Korean
    /// the word may run on into the next ("200米后", "200メートル先").
    static let words: [(String, DistanceUnit)] = [
        // Metres.
        ("m", .metres), ("meter", .metres), ("meters", .metres), ("metre", .metres), ("metres", .metres),
        ("metro", .metres), ("metros", .metres), ("metri", .metres), ("metr", .metres), ("metry", .metres),
        ("metrów", .metres), ("mètres", .metres), ("м", .metres), ("метр", .metres), ("метров", .metres),
        ("メートル", .metres), ("米", .metres), ("公尺", .metres), ("미터", .metres),
        ("م", .metres), ("متر", .metres), ("مترا", .metres), ("أمتار", .metres),
        // Kilometres.
        ("km", .kilometres), ("kilometer", .kilometres), ("kilometers", .kilometres), ("kilometre", .kilometres),
        ("kilometres", .kilometres), ("kilómetro", .kilometres), ("kilómetros", .kilometres), ("chilometri", .kilometres),
        ("chilometro", .kilometres), ("quilômetro", .kilometres), ("quilômetros", .kilometres), ("kilometr", .kilometres),
        ("kilometry", .kilometres), ("kilometrów", .kilometres), ("kilomètres", .kilometres), ("км", .kilometres),
        ("キロメートル", .kilometres), ("キロ", .kilometres), ("公里", .kilometres), ("千米", .kilometres), ("킬로미터", .kilometres),
        ("كم", .kilometres), ("كيلومتر", .kilometres), ("كيلومترات", .kilometres), ("كيلومترا", .kilometres),
        // Feet.
        ("ft", .feet), ("feet", .feet), ("foot", .feet), ("pies", .feet), ("pés", .feet), ("piedi", .feet), ("fuß", .feet),
        ("フィート", .feet), ("英尺", .feet), ("呎", .feet), ("피트", .feet), ("قدم", .feet), ("أقدام", .feet),
        // Miles.
        ("mi", .miles), ("mile", .miles), ("miles", .miles), ("milla", .miles), ("millas", .miles), ("meile", .miles),
        ("meilen", .miles), ("miglia", .miles), ("miglio", .miles), ("milha", .miles), ("milhas", .miles), ("mijl", .miles),
        ("mijlen", .miles), ("mil", .miles), ("mile", .miles), ("マイル", .miles), ("英里", .miles), ("哩", .miles), ("마일", .miles),
        ("ميل", .miles), ("أميال", .miles), ("ميلا", .miles),
        // Yards.
        ("yd", .yards), ("yds", .yards), ("yard", .yards), ("yards", .yards), ("yarda", .yards), ("yardas", .yards),
        ("ヤード", .yards), ("码", .yards), ("碼", .yards), ("야드", .yards), ("ياردة", .yards), ("ياردات", .yards),
    ]
}

/// A unit word, folded, and whether it may run on into the next word.
struct UnitWord {
    let bytes: [UInt8]
    let unit: DistanceUnit
    let runsOn: Bool

    static let all: [UnitWord] = {
        var out: [UnitWord] = []
        for (text, unit) in DistanceUnit.words {
            let b = FoldedText.phrase(text)
            // Han, kana and Hangul start with E3...ED in UTF-8.
            let cjk = (b.first ?? 0) >= 0xE3 && (b.first ?? 0) <= 0xED
            out.append(UnitWord(bytes: b, unit: unit, runsOn: cjk))
        }
        // Longest first, so that "キロメートル" wins over "キロ" and "千米" over "米".
        out.sort { $0.bytes.count > $1.bytes.count }
        return out
    }()

    /// The words of `all` by their first byte, for the unit after a
    /// number. Only the words with the right first byte are tried, where
    /// they lie in one flat array: walking `all` retained and released
    /// each word's bytes, and "m", the last of two dozen words that start
    /// with "m", was tried after every one of them.
    static let byFirst = FirstByteIndex(all.map { $0.bytes })
}

/// Words grouped by their first byte, in one flat array, each group in the
/// order of the list it was made from. A class: a reading takes it
/// without retaining each of its arrays.
final class FirstByteIndex {
    /// The words one after the other.
    private let bytes: [UInt8]
    /// Per word of a group: where it starts in `bytes`, its length and
    /// its id (its place in the list), three numbers each; group `c` (the
    /// words starting with byte `c`) is words `groups[c]..<groups[c + 1]`.
    private let words: [Int32]
    private let groups: [Int32]

    /// The id of the first word of the list at `k` of `b` that `accept`
    /// takes (given its id and where it ends in `b`).
    @inline(__always)
    func first(at k: Int, of b: UnsafeBufferPointer<UInt8>, where accept: (_ id: Int, _ end: Int) -> Bool) -> Int? {
        guard k < b.count else { return nil }
        let c = Int(b[k])
        let room = b.count - k
        return bytes.withUnsafeBufferPointer { wb in
            words.withUnsafeBufferPointer { w in
                for j in Int(groups[c])..<Int(groups[c + 1]) {
                    let n = Int(w[3 * j + 1])
                    guard n <= room else { continue }
                    let start = Int(w[3 * j])
                    var m = 1  // the first byte matched
                    while m < n && b[k + m] == wb[start + m] { m += 1 }
                    if m == n && accept(Int(w[3 * j + 2]), k + n) { return Int(w[3 * j + 2]) }
                }
                return nil
            }
        }
    }

    init(_ list: [[UInt8]]) {
        var bytes: [UInt8] = []
        var byFirst = [[Int32]](repeating: [], count: 256)
        for (id, w) in list.enumerated() {
            guard let c = w.first else { continue }
            byFirst[Int(c)] += [Int32(bytes.count), Int32(w.count), Int32(id)]
            bytes += w
        }
        var words: [Int32] = [], groups: [Int32] = []
        for group in byFirst {
            groups.append(Int32(words.count / 3))
            words += group
        }
        groups.append(Int32(words.count / 3))
        self.bytes = bytes
        self.words = words
        self.groups = groups
    }
}
