/// One phrase of a table, folded like the text it is looked for in.
///
/// In alphabets written with spaces (Latin, once folded to ASCII) a phrase
/// starts and ends on a word boundary: "left" is not found in "cleft", "droit"
/// (straight on) is not found in "droite" (right). A trailing `*` lets the
/// last word go on ("abbieg*" finds "abbiegen"), for languages that inflect.
/// Scripts without spaces between words (Chinese, Japanese) and those whose
/// words take prefixes and particles (Arabic, Korean) are found anywhere.
struct Phrase {
    let bytes: [UInt8]
    let wholeStart: Bool
    let wholeEnd: Bool

    init(_ text: String) {
        var b = FoldedText.phrase(text)
        var prefix = false
        if b.last == 0x2A {  // *
            b.removeLast()
            while b.last == 0x20 { b.removeLast() }
            prefix = true
        }
        bytes = b
        wholeStart = b.first?.isWordByte ?? false
        wholeEnd = !prefix && (b.last?.isWordByte ?? false)
    }

    /// Whether the phrase is at `i` of `text` (which has room for it), on
    /// its word boundaries.
    func matches(_ text: [UInt8], at i: Int) -> Bool {
        let n = bytes.count
        for k in 1..<max(1, n) where text[i + k] != bytes[k] { return false }
        if wholeStart && i > 0 && text[i - 1].isWordByte { return false }
        if wholeEnd && i + n < text.count && text[i + n].isWordByte { return false }
        return true
    }
}
