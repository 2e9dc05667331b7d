/// Where a line may end, before character i of a paragraph. Spaces,
/// ideographs and kana are real opportunities, and so are the ends of Thai
/// words (ThaiWordBreaks, libthai's dictionary); inside a Thai word any
/// character boundary is a fallback used only when a line has no real
/// opportunity.
enum LineBreaks {
    static let none: UInt8 = 0
    static let fallback: UInt8 = 1
    static let allowed: UInt8 = 2

    @inline(__always)
    static func isSpace(_ s: UInt32) -> Bool { s == 0x20 || s == 0x3000 }

    /// Ideographs, kana, Hangul syllables and fullwidth forms: a line may
    /// break between any two of them.
    @inline(__always)
    static func breaksAnywhere(_ s: UInt32) -> Bool {
        (s >= 0x2E80 && s <= 0x9FFF) || (s >= 0xAC00 && s <= 0xD7AF) || (s >= 0xF900 && s <= 0xFAFF)
            || (s >= 0xFF00 && s <= 0xFFEF) || (s >= 0x20000 && s <= 0x2FFFF)
    }

    @inline(__always)
    static func isThai(_ s: UInt32) -> Bool { s >= 0x0E00 && s <= 0x0E7F }

    /// Kinsoku: characters that never start a line (closing brackets and
    /// punctuation, small kana, the prolonged sound mark, iteration marks).
    static func neverStartsLine(_ s: UInt32) -> Bool {
        switch s {
        case 0x3001, 0x3002, 0xFF0C, 0xFF0E, 0xFF1A, 0xFF1B, 0xFF1F, 0xFF01, 0x30FB, 0x30FC, 0x2015, 0x301C,
             0x3005, 0x309D, 0x309E, 0x30FD, 0x30FE,
             0x3009, 0x300B, 0x300D, 0x300F, 0x3011, 0x3015, 0x3017, 0x3019, 0x301B, 0xFF09, 0xFF3D, 0xFF5D,
             0x3041, 0x3043, 0x3045, 0x3047, 0x3049, 0x3063, 0x3083, 0x3085, 0x3087, 0x308E, 0x3095, 0x3096,
             0x30A1, 0x30A3, 0x30A5, 0x30A7, 0x30A9, 0x30C3, 0x30E3, 0x30E5, 0x30E7, 0x30EE, 0x30F5, 0x30F6,
             0x21, 0x29, 0x2C, 0x2E, 0x3A, 0x3B, 0x3F, 0x5D, 0x7D:
            return true
        default:
            return false
        }
    }

    /// Kinsoku: opening brackets never end a line.
    static func neverEndsLine(_ s: UInt32) -> Bool {
        switch s {
        case 0x3008, 0x300A, 0x300C, 0x300E, 0x3010, 0x3014, 0x3016, 0x3018, 0x301A, 0xFF08, 0xFF3B, 0xFF5B,
             0x28, 0x5B, 0x7B:
            return true
        default:
            return false
        }
    }

    /// The opportunity before `cur`, which follows `prev`.
    static func before(_ cur: UInt32, after prev: UInt32) -> UInt8 {
        if isSpace(cur) { return none }
        if isSpace(prev) { return allowed }
        if neverStartsLine(cur) || neverEndsLine(prev) { return none }
        if breaksAnywhere(cur) || breaksAnywhere(prev) { return allowed }
        // A Thai leading vowel (เ แ โ ใ ไ) belongs with the consonant after it.
        if isThai(cur) && isThai(prev) && !(prev >= 0x0E40 && prev <= 0x0E44) { return fallback }
        return none
    }
}
