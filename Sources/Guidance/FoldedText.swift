/// Instruction text brought to one spelling so that a phrase table can be
/// matched byte for byte: lower case, Latin letters without their accents
/// (ä, á, ł, ş → a, a, l, s), Arabic without its vowel marks and with one
/// form of alef and yeh, every kind of digit as ASCII, every kind of blank as
/// one space, invisible direction marks dropped. Punctuation stays, so "2."
/// (an ordinal), "1,5" (a decimal) and "1/2" (a fraction) still read as
/// written.
///
/// Each folded byte remembers where in the original text's UTF-8 the
/// scalar it came from starts, so a match (a distance) can be cut out of
/// the text as the phone wrote it. The text is read as UTF-8, one scalar
/// at a time, with no array of its scalars in between.
/// No Foundation: the firmware is Embedded Swift.
struct FoldedText {
    /// The folded bytes are `storage[..<count]`: UTF-8, starting and
    /// ending with a space, no two spaces in a row. The arrays are kept at
    /// the size of the longest text folded so far and written through
    /// pointers: appending each byte checked each array's uniqueness and
    /// capacity, some 150 instructions a scalar.
    private var storage: [UInt8] = []
    /// For every folded byte, the UTF-8 offset in `text` of the scalar it
    /// came from (-1 for the spaces added at both ends).
    private var origins: [Int32] = []
    /// The number of folded bytes.
    private(set) var count = 0
    /// The original text; its first `sourceCount` UTF-8 bytes (up to
    /// `maximumScalars` scalars) were read.
    private(set) var text = ""
    private(set) var sourceCount = 0

    /// Texts longer than this are cut: an instruction is a line or two, and
    /// the cap bounds the work on any input.
    static let maximumScalars = 1024

    init() {}

    init(_ text: String) {
        fold(text)
    }

    /// The folded bytes, as an array of their own.
    var bytes: [UInt8] { withBytes { Array($0) } }

    /// The folded bytes where they lie.
    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        storage.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[..<count])) }
    }

    /// The UTF-8 of the text read (the capped original).
    func withSource<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        var t = text
        let n = sourceCount
        return t.withUTF8 { body(UnsafeBufferPointer(rebasing: $0[..<n])) }
    }

    /// Folds `text` into this value's arrays, which keep their storage from
    /// text to text: a reader that folds each new title in the same value
    /// allocates nothing for it (three arrays made and freed a text before).
    mutating func fold(_ text: String) {
        self.text = text
        var t = text
        let (n, read) = t.withUTF8 { u in
            // Folding never makes a scalar longer: the text and the two spaces fit.
            let room = min(u.count, 4 * FoldedText.maximumScalars) + 2
            if storage.count < room {
                storage = [UInt8](repeating: 0, count: room)
                origins = [Int32](repeating: 0, count: room)
            }
            return storage.withUnsafeMutableBufferPointer { b in
                origins.withUnsafeMutableBufferPointer { o in FoldedText.fold(u, into: b, origins: o) }
            }
        }
        count = n
        sourceCount = read
    }

    /// Folds the UTF-8 `u` into `b`, with each byte's origin in `o` (both
    /// with room for `u` and two spaces): the number of folded bytes and
    /// of `u`'s bytes read.
    private static func fold(_ u: UnsafeBufferPointer<UInt8>, into b: UnsafeMutableBufferPointer<UInt8>,
                             origins o: UnsafeMutableBufferPointer<Int32>) -> (Int, Int) {
        b[0] = 0x20
        o[0] = -1
        var n = 1, i = 0, scalars = 0
        while i < u.count && scalars < maximumScalars {
            let (v, length) = scalar(u, at: i)
            switch fold(v) {
            case .drop:
                break
            case .space:
                if b[n - 1] != 0x20 {
                    b[n] = 0x20
                    o[n] = Int32(i)
                    n += 1
                }
            case .scalar(let f):
                let m = encode(f, to: b.baseAddress! + n)
                for k in n..<(n + m) { o[k] = Int32(i) }
                n += m
            }
            i += length
            scalars += 1
        }
        if b[n - 1] != 0x20 {
            b[n] = 0x20
            o[n] = -1
            n += 1
        }
        return (n, i)
    }

    /// The scalar value that starts at `i` of valid UTF-8 (a String's), and
    /// its length in bytes.
    @inline(__always)
    static func scalar(_ u: UnsafeBufferPointer<UInt8>, at i: Int) -> (UInt32, Int) {
        let lead = u[i]
        if lead < 0x80 { return (UInt32(lead), 1) }
        let n = length(lead)
        var v = UInt32(lead) & (0x7F >> n)
        for k in 1..<n { v = v << 6 | UInt32(u[i + k] & 0x3F) }
        return (v, n)
    }

    /// The length of the UTF-8 sequence that starts with `lead`.
    @inline(__always)
    static func length(_ lead: UInt8) -> Int {
        lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
    }

    /// UTF-8 of one scalar value (a valid scalar: `fold` only returns
    /// those) at `p`: the number of bytes.
    @inline(__always)
    static func encode(_ v: UInt32, to p: UnsafeMutablePointer<UInt8>) -> Int {
        switch v {
        case 0..<0x80:
            p[0] = UInt8(v)
            return 1
        case 0x80..<0x800:
            p[0] = 0xC0 | UInt8(v >> 6)
            p[1] = 0x80 | UInt8(v & 0x3F)
            return 2
        case 0x800..<0x10000:
            p[0] = 0xE0 | UInt8(v >> 12)
            p[1] = 0x80 | UInt8((v >> 6) & 0x3F)
            p[2] = 0x80 | UInt8(v & 0x3F)
            return 3
        default:
            p[0] = 0xF0 | UInt8(v >> 18)
            p[1] = 0x80 | UInt8((v >> 12) & 0x3F)
            p[2] = 0x80 | UInt8((v >> 6) & 0x3F)
            p[3] = 0x80 | UInt8(v & 0x3F)
            return 4
        }
    }

    // MARK: - Folding one scalar

    enum Folded: Equatable {
        case drop
        case space
        case scalar(UInt32)
    }

    /// Base letters of U+00C0...U+00FF (upper and lower case), "_" where the
    /// character is not a letter (× ÷).
    private static let latin1: [UInt8] = Array("aaaaaaaceeeeiiiidnooooo_ouuuuytsaaaaaaaceeeeiiiidnooooo_ouuuuyty".utf8)
    /// Base letters of U+0100...U+017F, Latin Extended-A (Polish, Turkish,
    /// Czech, Hungarian ...).
    private static let latinA: [UInt8] = Array(("aaaaaaccccccccdd" + "ddeeeeeeeeeegggg" + "gggghhhhiiiiiiii" + "iiiijjkkklllllll"
                                                 + "lllnnnnnnnnnoooo" + "oooorrrrrrssssss" + "ssttttttuuuuuuuu" + "uuuuwwyyyzzzzzzs").utf8)

    static func fold(_ u: Unicode.Scalar) -> Folded {
        fold(u.value)
    }

    /// `fold` of a scalar's value (a valid one).
    static func fold(_ v: UInt32) -> Folded {
        // Most instruction text is ASCII letters and blanks.
        if v >= 0x61 && v <= 0x7A { return .scalar(v) }
        if v == 0x20 { return .space }
        switch v {
        case 0x41...0x5A: return .scalar(v + 0x20)
        case 0x30...0x39, 0x61...0x7A: return .scalar(v)
        case 0x09, 0x0A, 0x0D, 0x20, 0x2D, 0x27, 0x5F: return .space  // blanks, - ' _
        case 0x00...0x1F, 0x7F...0x9F: return .space
        case 0xA0: return .space
        case 0xAA: return .scalar(0x61)  // ª (2.ª salida)
        case 0xBA: return .scalar(0x6F)  // º
        case 0xB7: return .space  // middle dot
        case 0xC0...0xFF:
            let b = latin1[Int(v - 0xC0)]
            return b == 0x5F ? .scalar(v) : .scalar(UInt32(b))
        case 0x100...0x17F:
            return .scalar(UInt32(latinA[Int(v - 0x100)]))
        case 0x218...0x21B: return .scalar(v < 0x21A ? 0x73 : 0x74)  // ș ț
        case 0x300...0x36F: return .drop  // combining accents (decomposed text, the dot of a lowered İ)
        case 0x391...0x3A9: return .scalar(v + 0x20)  // Greek capitals
        case 0x410...0x42F: return .scalar(v + 0x20)  // Cyrillic capitals
        case 0x400...0x40F: return .scalar(v + 0x50)
        // Arabic: vowel marks and tatweel go; alef, yeh and kaf get one form;
        // Arabic-Indic digits and separators become ASCII.
        case 0x610...0x61A, 0x64B...0x65F, 0x670, 0x640, 0x6D6...0x6ED: return .drop
        case 0x622, 0x623, 0x625, 0x671: return .scalar(0x627)
        case 0x649, 0x6CC: return .scalar(0x64A)
        case 0x6A9: return .scalar(0x643)
        case 0x660...0x669: return .scalar(v - 0x660 + 0x30)
        case 0x6F0...0x6F9: return .scalar(v - 0x6F0 + 0x30)
        case 0x66B: return .scalar(0x2E)  // Arabic decimal separator
        case 0x66C: return .scalar(0x2C)  // Arabic thousands separator
        case 0x60C: return .scalar(0x2C)  // Arabic comma
        // Invisible: direction marks and embeddings, joiners, the byte order mark.
        case 0x61C, 0x200B...0x200F, 0x202A...0x202E, 0x2060...0x2069, 0xFEFF: return .drop
        case 0x2000...0x200A, 0x202F, 0x205F, 0x3000: return .space
        case 0x2010...0x2015: return .space  // dashes
        case 0x2018, 0x2019: return .space  // typographic apostrophes
        // Full-width ASCII (Japanese and Chinese text): digits, letters, . and ,
        case 0xFF10...0xFF19: return .scalar(v - 0xFF10 + 0x30)
        case 0xFF21...0xFF3A: return .scalar(v - 0xFF21 + 0x61)
        case 0xFF41...0xFF5A: return .scalar(v - 0xFF41 + 0x61)
        case 0xFF0E: return .scalar(0x2E)
        case 0xFF0D: return .space
        default: return .scalar(v)
        }
    }

    /// A phrase of a table in the folded spelling, without the spaces
    /// `FoldedText` puts at both ends.
    static func phrase(_ text: String) -> [UInt8] {
        var b = FoldedText(text).bytes
        b.removeFirst()
        b.removeLast()
        return b
    }
}

extension UInt8 {
    /// An ASCII letter or digit: the folded Latin alphabet, where a phrase
    /// must start and end on a word boundary.
    var isWordByte: Bool { (self >= 0x30 && self <= 0x39) || (self >= 0x61 && self <= 0x7A) || (self >= 0x41 && self <= 0x5A) }
    var isDigit: Bool { self >= 0x30 && self <= 0x39 }
}

extension FoldedText {
    /// Where in `text`'s UTF-8 the scalars that the folded bytes
    /// `from..<to` came from lie (whole scalars).
    func sourceRange(_ from: Int, _ to: Int) -> Range<Int> {
        withSource { source in
            var lo = source.count, hi = 0
            for k in from..<min(to, count) where origins[k] >= 0 {
                let o = Int(origins[k])
                lo = min(lo, o)
                hi = max(hi, o + FoldedText.length(source[o]))
            }
            return lo < hi ? lo..<hi : 0..<0
        }
    }
}
