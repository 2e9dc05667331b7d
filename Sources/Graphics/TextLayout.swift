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

/// One laid-out line: shaped[start..<end], width in 26.6, and whether an
/// ellipsis follows it.
struct LaidLine {
    var start: Int
    var end: Int
    var width: Int
    var ellipsis: Bool
}

extension Fonts {
    /// Ideographic scripts break between any two characters.
    @inline(__always)
    static func breaksAnywhere(_ s: UInt32) -> Bool {
        (s >= 0x2E80 && s <= 0x9FFF) || (s >= 0xF900 && s <= 0xFAFF) || (s >= 0xFF00 && s <= 0xFFEF)
            || (s >= 0x20000 && s <= 0x2FFFF)
    }

    /// Greedy word wrap of `g` into at most `maxLines` lines of `maxWidth`
    /// (26.6). Words longer than a line are broken; the last line that cannot
    /// hold the rest gets an ellipsis of `ellipsisWidth`.
    static func breakLines(_ g: [ShapedGlyph], maxWidth: Int, maxLines: Int, ellipsisWidth: Int) -> [LaidLine] {
        var lines: [LaidLine] = []
        guard maxLines > 0, maxWidth > 0 else { return lines }
        let n = g.count
        var start = 0
        while start < n && g[start].scalar == 0x20 { start += 1 }
        while start < n && lines.count < maxLines {
            var w = 0
            var i = start
            var breakAt = -1
            while i < n {
                let add = Int(g[i].advance) + (i > start ? Int(g[i].kern) : 0)
                if w + add > maxWidth && i > start { break }
                if g[i].scalar == 0x20 {
                    breakAt = i
                } else if i > start && (breaksAnywhere(g[i].scalar) || breaksAnywhere(g[i - 1].scalar)) {
                    breakAt = i
                }
                w += add
                i += 1
            }
            if i >= n {
                var end = n
                while end > start && g[end - 1].scalar == 0x20 { end -= 1 }
                lines.append(LaidLine(start: start, end: end, width: width(g, start, end), ellipsis: false))
                break
            }
            if lines.count == maxLines - 1 {
                // Last allowed line and text remains: cut it to leave room for the ellipsis.
                let room = maxWidth - ellipsisWidth
                var end = start
                var lw = 0
                while end < n {
                    let add = Int(g[end].advance) + (end > start ? Int(g[end].kern) : 0)
                    if lw + add > room { break }
                    lw += add
                    end += 1
                }
                while end > start && g[end - 1].scalar == 0x20 { end -= 1 }
                lines.append(LaidLine(start: start, end: end, width: width(g, start, end) + ellipsisWidth, ellipsis: true))
                break
            }
            var end: Int
            if g[i].scalar == 0x20 {
                end = i
            } else if breakAt > start {
                end = breakAt
            } else {
                end = i
            }
            var next = end
            while end > start && g[end - 1].scalar == 0x20 { end -= 1 }
            lines.append(LaidLine(start: start, end: end, width: width(g, start, end), ellipsis: false))
            while next < n && g[next].scalar == 0x20 { next += 1 }
            start = next
        }
        return lines
    }

    /// The lines `text` wraps into (with "…" where it was cut), as strings.
    public func wrap(_ text: String, width: Int, size: Int, weight: FontWeight = .regular, maxLines: Int) -> [String] {
        shape(text, size: size, weight: weight, into: &shaped)
        let e = ellipsis(size: size, weight: weight)
        let lines = Fonts.breakLines(shaped, maxWidth: width * 64, maxLines: maxLines,
                                     ellipsisWidth: Fonts.width(e, 0, e.count))
        var out: [String] = []
        for line in lines {
            var s = ""
            for i in line.start..<line.end {
                if let u = Unicode.Scalar(shaped[i].scalar) { s.unicodeScalars.append(u) }
            }
            if line.ellipsis {
                for g in e { if let u = Unicode.Scalar(g.scalar) { s.unicodeScalars.append(u) } }
            }
            out.append(s)
        }
        return out
    }
}
