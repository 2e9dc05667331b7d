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

    /// The first byte of each word of `all`, in the same order (0 for none).
    static let firstBytes: [UInt8] = all.map { $0.bytes.first ?? 0 }
}
