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

    /// Where the phrase first occurs in `text` (folded), or nil.
    func find(in text: [UInt8]) -> Int? {
        let n = bytes.count, count = text.count
        guard n > 0, n <= count else { return nil }
        let first = bytes[0]
        var i = 0
        while i + n <= count {
            if text[i] == first && matches(text, at: i) { return i }
            i += 1
        }
        return nil
    }

    private func matches(_ text: [UInt8], at i: Int) -> Bool {
        let n = bytes.count
        for k in 1..<max(1, n) where text[i + k] != bytes[k] { return false }
        if wholeStart && i > 0 && text[i - 1].isWordByte { return false }
        if wholeEnd && i + n < text.count && text[i + n].isWordByte { return false }
        return true
    }
}

/// Where the earliest of several phrases occurs.
func earliest(_ phrases: [Phrase], in text: [UInt8]) -> Int? {
    var best: Int?
    for p in phrases {
        if let i = p.find(in: text), i < (best ?? Int.max) { best = i }
    }
    return best
}
