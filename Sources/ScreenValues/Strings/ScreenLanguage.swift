/// The language of the head unit's own words (`display.language` in the
/// configuration). The navigation text itself comes from the phone in the
/// phone's language and is shown as it is.
public enum ScreenLanguage: CaseIterable, Equatable {
    case english, spanish, german, french, italian, portuguese, dutch, polish, turkish
    case japanese, chineseSimplified, chineseTraditional, korean, arabic

    /// The configuration's name for it (a BCP 47 language tag).
    public var code: String {
        switch self {
        case .english: return "en"
        case .spanish: return "es"
        case .german: return "de"
        case .french: return "fr"
        case .italian: return "it"
        case .portuguese: return "pt"
        case .dutch: return "nl"
        case .polish: return "pl"
        case .turkish: return "tr"
        case .japanese: return "ja"
        case .chineseSimplified: return "zh-Hans"
        case .chineseTraditional: return "zh-Hant"
        case .korean: return "ko"
        case .arabic: return "ar"
        }
    }

    /// From a language tag, any case: `de`, `pt-BR`, `zh-Hant`, `zh-TW`
    /// (a region chooses the script where it says which: TW, HK, MO are
    /// Traditional), or nil.
    public init?(code: String) {
        let tag = code.lowercased().split(separator: "-").map(String.init)
        guard let first = tag.first else { return nil }
        if first == "zh" {
            let rest = Set(tag.dropFirst())
            self = rest.contains("hant") || rest.contains("tw") || rest.contains("hk") || rest.contains("mo")
                ? .chineseTraditional : .chineseSimplified
            return
        }
        guard let found = ScreenLanguage.allCases.first(where: { $0.code == first }) else { return nil }
        self = found
    }

    /// Whether numbers are written with a decimal comma ("1,5 km").
    public var decimalComma: Bool {
        switch self {
        case .spanish, .german, .french, .italian, .portuguese, .dutch, .polish, .turkish: return true
        default: return false
        }
    }

    /// Whether AM/PM comes before the time ("午後9:17").
    var periodFirst: Bool {
        switch self {
        case .japanese, .chineseSimplified, .chineseTraditional, .korean: return true
        default: return false
        }
    }

    /// The translations; English is `ScreenTextKey.english`.
    var table: [ScreenTextKey: String] {
        switch self {
        case .english: return [:]
        case .spanish: return ScreenStrings.spanish
        case .german: return ScreenStrings.german
        case .french: return ScreenStrings.french
        case .italian: return ScreenStrings.italian
        case .portuguese: return ScreenStrings.portuguese
        case .dutch: return ScreenStrings.dutch
        case .polish: return ScreenStrings.polish
        case .turkish: return ScreenStrings.turkish
        case .japanese: return ScreenStrings.japanese
        case .chineseSimplified: return ScreenStrings.chineseSimplified
        case .chineseTraditional: return ScreenStrings.chineseTraditional
        case .korean: return ScreenStrings.korean
        case .arabic: return ScreenStrings.arabic
        }
    }
}

/// The translation tables, one file per language.
enum ScreenStrings {}
