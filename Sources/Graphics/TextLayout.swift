/// Where lines sit in their box. `left` is the start of the line in
/// reading order: a right-to-left paragraph (Arabic, Hebrew) set `left`
/// is set against the right edge.
public enum TextAlignment {
    case left, center, right
}

/// How a block of text is set.
public struct TextStyle {
    public var size: Int
    public var weight: FontWeight
    public var color: Color
    public var alignment: TextAlignment
    /// Lines before the text is cut with an ellipsis.
    public var maxLines: Int
    /// Baseline-to-baseline distance as a multiple of `size`.
    public var lineHeight: Float

    public init(size: Int, weight: FontWeight = .regular, color: Color, alignment: TextAlignment = .left,
                maxLines: Int = 1, lineHeight: Float = 1.2) {
        self.size = max(1, min(size, 1000))
        self.weight = weight
        self.color = color
        self.alignment = alignment
        self.maxLines = maxLines
        self.lineHeight = lineHeight
    }

    /// Pixels between two baselines.
    public var lineAdvance: Int { Int(Float(size) * lineHeight + 0.5) }
}

/// What drawing a text block produced.
public struct TextResult: Equatable {
    /// Union of the drawn glyph bitmaps (empty if nothing visible was drawn).
    public var ink: Rect
    public var lines: Int
    /// True when an ellipsis replaced part of the text.
    public var truncated: Bool
    /// Width of the widest line in pixels.
    public var width: Int
}

/// One laid-out line: characters [start, end) of a paragraph in logical
/// order, its width in 26.6 (with the ellipsis), and whether an ellipsis
/// ends it.
struct LaidLine {
    var start: Int
    var end: Int
    var width: Int
    var ellipsis: Bool
}

extension Fonts {
    /// Greedy line breaking of `p` into at most `maxLines` lines of
    /// `maxWidth` (26.6), at the last opportunity that fits (LineBreaks);
    /// a line with none is cut at a cluster boundary, so a long word is
    /// broken, never dropped. The last line that cannot hold the rest is
    /// cut to leave room for an ellipsis of `ellipsisWidth`.
    static func breakLines(_ p: ShapedParagraph, maxWidth: Int, maxLines: Int, ellipsisWidth: Int) -> [LaidLine] {
        var lines: [LaidLine] = []
        guard maxLines > 0, maxWidth > 0 else { return lines }
        let s = p.scalars
        let n = s.count
        var start = 0
        while start < n && LineBreaks.isSpace(s[start]) { start += 1 }
        while start < n && lines.count < maxLines {
            var w = 0
            var i = start
            var best = -1, fallback = -1
            while i < n {
                let add = Int(p.advances[i])
                if i > start && p.clusterStart[i] {
                    if p.breaks[i] == LineBreaks.allowed { best = i } else if p.breaks[i] == LineBreaks.fallback { fallback = i }
                }
                if add > 0 && w + add > maxWidth && i > start { break }
                w += add
                i += 1
            }
            if i >= n {
                let end = trimSpaces(s, start, n)
                lines.append(LaidLine(start: start, end: end, width: p.width(start, end), ellipsis: false))
                break
            }
            if lines.count == maxLines - 1 {
                // Last allowed line and text remains: cut it to leave room for the ellipsis.
                let room = maxWidth - ellipsisWidth
                var end = start
                var lw = 0
                while end < n {
                    let add = Int(p.advances[end])
                    if add > 0 && lw + add > room { break }
                    lw += add
                    end += 1
                }
                end = trimSpaces(s, start, end)
                lines.append(LaidLine(start: start, end: end, width: p.width(start, end) + ellipsisWidth, ellipsis: true))
                break
            }
            var end = i
            if !LineBreaks.isSpace(s[i]) {
                if best > start { end = best } else if fallback > start { end = fallback }
            }
            var next = end
            end = trimSpaces(s, start, end)
            lines.append(LaidLine(start: start, end: end, width: p.width(start, end), ellipsis: false))
            while next < n && LineBreaks.isSpace(s[next]) { next += 1 }
            start = next
        }
        return lines
    }

    @inline(__always)
    private static func trimSpaces(_ s: [UInt32], _ start: Int, _ end: Int) -> Int {
        var e = end
        while e > start && LineBreaks.isSpace(s[e - 1]) { e -= 1 }
        return e
    }

    /// The lines `text` wraps into (with "…" where it was cut), as strings
    /// in logical order.
    public func wrap(_ text: String, width: Int, size: Int, weight: FontWeight = .regular, maxLines: Int) -> [String] {
        let p = paragraph(text, size: size, weight: weight)
        let e = ellipsis(size: size, weight: weight)
        let lines = Fonts.breakLines(p, maxWidth: width * 64, maxLines: maxLines,
                                     ellipsisWidth: e.width(0, e.scalars.count))
        var out: [String] = []
        for line in lines {
            var s = ""
            for i in line.start..<line.end {
                if let u = Unicode.Scalar(p.scalars[i]) { s.unicodeScalars.append(u) }
            }
            if line.ellipsis {
                for c in e.scalars { if let u = Unicode.Scalar(c) { s.unicodeScalars.append(u) } }
            }
            out.append(s)
        }
        return out
    }
}
