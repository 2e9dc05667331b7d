/// One glyph out of HarfBuzz. `face` indexes the font set; glyph 0 is the
/// face's .notdef, drawn as a box.
struct ShapedGlyph {
    var face: Int16
    var glyph: UInt32
    /// The first character (index into the paragraph's scalars) of the
    /// cluster the glyph belongs to.
    var cluster: Int32
    /// Advance and offsets in 26.6 pixels; y grows upwards, as in HarfBuzz.
    var advance: Int32
    var xOffset: Int32
    var yOffset: Int32
}

/// Characters [start, end) of one direction, script and font, shaped into
/// glyphs [glyphStart, glyphEnd) in visual order (right-to-left runs come
/// out of HarfBuzz reversed).
struct ShapedRun {
    var start: Int
    var end: Int
    var level: UInt8
    var glyphStart: Int
    var glyphEnd: Int
}

/// A paragraph shaped once at one size and weight, ready to be broken into
/// lines of any width: the characters in logical order with what each adds
/// to a line's width, where lines may break, and the runs of glyphs.
final class ShapedParagraph {
    /// Unicode scalars in logical order (control characters as spaces).
    var scalars: [UInt32] = []
    /// Advance of the cluster each character starts, 26.6; 0 for the other
    /// characters of a cluster, so a line's width is a plain sum.
    var advances: [Int32] = []
    /// True where a cluster starts: lines break only there.
    var clusterStart: [Bool] = []
    /// `LineBreaks` opportunity before each character.
    var breaks: [UInt8] = []
    var levels: [UInt8] = []
    var rightToLeft = false
    var runs: [ShapedRun] = []
    var glyphs: [ShapedGlyph] = []

    /// Width of characters [start, end) in 26.6.
    @inline(__always)
    func width(_ start: Int, _ end: Int) -> Int {
        var w = 0
        var i = start
        while i < end { w += Int(advances[i]); i += 1 }
        return w
    }

    /// Memory charged to the shaping cache.
    var cost: Int { scalars.count * 11 + glyphs.count * 24 + runs.count * 40 + 96 }
}

/// The shaped paragraphs most recently drawn, by text, size and weight,
/// bounded in bytes: a screen redraws the same strings every frame, and
/// shaping (bidi, script runs, font choice, HarfBuzz) is far dearer than
/// drawing the glyphs.
final class ShapeCache {
    struct Key: Hashable {
        var text: [UInt8]
        var size: Int
        var weight: Int
    }

    let budget: Int
    private(set) var bytes = 0
    private var entries: [Key: (paragraph: ShapedParagraph, used: Int)] = [:]
    private var clock = 0

    init(budget: Int) { self.budget = budget }

    var count: Int { entries.count }

    func lookup(_ key: Key) -> ShapedParagraph? {
        guard let e = entries[key] else { return nil }
        clock += 1
        entries[key] = (e.paragraph, clock)
        return e.paragraph
    }

    func insert(_ key: Key, _ paragraph: ShapedParagraph) {
        clock += 1
        if let old = entries[key] { bytes -= old.paragraph.cost + key.text.count }
        entries[key] = (paragraph, clock)
        bytes += paragraph.cost + key.text.count
        // Evictions are rare (a screen holds a few dozen strings), so the
        // least recently used entry is found by a scan.
        while bytes > budget && entries.count > 1 {
            var oldest: Key?
            var oldestUse = Int.max
            for (k, e) in entries where e.used < oldestUse && k != key {
                oldest = k
                oldestUse = e.used
            }
            guard let victim = oldest, let e = entries[victim] else { break }
            bytes -= e.paragraph.cost + victim.text.count
            entries[victim] = nil
        }
    }

    func removeAll() {
        entries.removeAll()
        bytes = 0
    }
}
