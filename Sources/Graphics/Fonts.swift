import BluetoothCore
import CFreeType

public enum FontWeight: Int {
    case regular = 0
    case bold = 1
}

/// One glyph of a shaped run. `face` is -1 for a character no font has
/// (drawn as a box).
struct ShapedGlyph {
    var scalar: UInt32
    var face: Int16
    var glyph: UInt32
    /// Advance in 26.6 pixels.
    var advance: Int32
    /// Kerning against the previous glyph, 26.6 pixels.
    var kern: Int32
}

/// The font set: regular and bold of the shipped family plus a fallback
/// chain (e.g. a CJK font from the system) searched for characters the
/// family lacks, and one bounded glyph cache shared by all of them.
public final class Fonts {
    static let regularIndex = 0
    static let boldIndex = 1

    let library: FT_Library
    var faces: [FontFace] = []
    public let cache: GlyphCache
    /// Reused shaping buffer: no allocation per drawn string once warm.
    var shaped: [ShapedGlyph] = []
    private var ellipsisShaped: [ShapedGlyph] = []

    /// Loads the two family faces (required) and the fallbacks (each one
    /// that fails to load is logged and skipped).
    public init(regular: String, bold: String, fallbacks: [String] = [], glyphCacheBytes: Int = 1_536 * 1024) throws(FontError) {
        var lib: FT_Library?
        let err = FT_Init_FreeType(&lib)
        guard err == 0, let library = lib else {
            throw FontError(path: "", code: err, reason: "FreeType did not initialise")
        }
        self.library = library
        cache = GlyphCache(budget: glyphCacheBytes)
        // On a throw the object is already complete, so deinit releases the library.
        faces.append(try FontFace(library: library, path: regular))
        faces.append(try FontFace(library: library, path: bold))
        for path in fallbacks {
            do {
                faces.append(try FontFace(library: library, path: path))
            } catch {
                Log.warning("fonts", "fallback font skipped: \(error.description)")
            }
        }
        shaped.reserveCapacity(256)
    }

    deinit {
        // Faces belong to the library: release them first.
        faces.removeAll()
        FT_Done_FreeType(library)
    }

    /// Number of loaded faces (2 + usable fallbacks).
    public var faceCount: Int { faces.count }

    // MARK: metrics

    /// Pixels from the baseline up to the top of the tallest letters.
    public func ascent(size: Int, weight: FontWeight = .regular) -> Int {
        let f = faces[weight.rawValue]
        return Int((Int64(f.ascender) * Int64(size) + Int64(f.unitsPerEm) - 1) / Int64(f.unitsPerEm))
    }

    /// Pixels from the baseline down to the lowest descender.
    public func descent(size: Int, weight: FontWeight = .regular) -> Int {
        let f = faces[weight.rawValue]
        return Int((Int64(-f.descender) * Int64(size) + Int64(f.unitsPerEm) - 1) / Int64(f.unitsPerEm))
    }

    /// Height of capital letters in pixels (the rendered "H"), for centring
    /// text optically in buttons and aligning numbers of different sizes.
    public func capHeight(size: Int, weight: FontWeight = .regular) -> Int {
        let face = weight.rawValue
        let g = faces[face].glyphIndex(0x48)
        if let slot = glyph(face: face, glyph: g, size: size) {
            return Int(cache.nodes[slot].glyph.top)
        }
        return size * 73 / 100
    }

    // MARK: shaping

    /// Characters that take no space and must not draw a missing-glyph box.
    @inline(__always)
    static func isInvisible(_ s: UInt32) -> Bool {
        (s >= 0x200B && s <= 0x200F) || (s >= 0xFE00 && s <= 0xFE0F) || s == 0x2060 || s == 0xFEFF
            || (s >= 0x202A && s <= 0x202E) || (s >= 0x2066 && s <= 0x2069)
    }

    /// The cache slot of a glyph, rendering it on a miss; nil if FreeType
    /// cannot render it.
    @inline(__always)
    func glyph(face: Int, glyph: UInt32, size: Int) -> Int? {
        let key = GlyphKey(face: UInt16(face), size: UInt16(size), glyph: glyph)
        if let slot = cache.lookup(key) { return slot }
        guard let bitmap = faces[face].render(glyph: glyph, size: size) else { return nil }
        return cache.insert(key, bitmap)
    }

    /// First face in the chain that has the character: the requested
    /// weight, the other weight, then the fallbacks.
    @inline(__always)
    func resolve(_ scalar: UInt32, weight: FontWeight) -> (Int, UInt32)? {
        let first = weight.rawValue
        let g0 = faces[first].glyphIndex(scalar)
        if g0 != 0 { return (first, g0) }
        for i in 0..<faces.count where i != first {
            let g = faces[i].glyphIndex(scalar)
            if g != 0 { return (i, g) }
        }
        return nil
    }

    /// Shapes UTF-8 bytes into `out`: one entry per visible scalar with
    /// face, glyph, advance and kerning. Control characters become spaces.
    func shape(_ bytes: UnsafeBufferPointer<UInt8>, size: Int, weight: FontWeight, into out: inout [ShapedGlyph]) {
        out.removeAll(keepingCapacity: true)
        let missingAdvance = Int32(size * 64 * 6 / 10)
        var i = 0
        var prevFace: Int16 = -1
        var prevGlyph: UInt32 = 0
        while i < bytes.count {
            var (scalar, len) = UTF8Decoder.decode(bytes, at: i)
            i += len
            if scalar < 0x20 || (scalar >= 0x7F && scalar < 0xA0) { scalar = 0x20 }
            if Fonts.isInvisible(scalar) { continue }
            var g = ShapedGlyph(scalar: scalar, face: -1, glyph: 0, advance: missingAdvance, kern: 0)
            if let (face, index) = resolve(scalar, weight: weight), let slot = glyph(face: face, glyph: index, size: size) {
                g.face = Int16(face)
                g.glyph = index
                g.advance = cache.nodes[slot].glyph.advance
                if Int16(face) == prevFace {
                    g.kern = faces[face].kerning(prevGlyph, index, size: size)
                }
            }
            prevFace = g.face
            prevGlyph = g.glyph
            out.append(g)
        }
    }

    func shape(_ text: String, size: Int, weight: FontWeight, into out: inout [ShapedGlyph]) {
        var t = text
        t.withUTF8 { shape($0, size: size, weight: weight, into: &out) }
    }

    /// The shaped ellipsis ("…", or "..." if no font has it).
    func ellipsis(size: Int, weight: FontWeight) -> [ShapedGlyph] {
        var e: [ShapedGlyph] = []
        if resolve(0x2026, weight: weight) != nil {
            shape("\u{2026}", size: size, weight: weight, into: &e)
        } else {
            shape("...", size: size, weight: weight, into: &e)
        }
        return e
    }

    /// Width in 26.6 of shaped[range], kerning inside the range only.
    @inline(__always)
    static func width(_ glyphs: [ShapedGlyph], _ start: Int, _ end: Int) -> Int {
        var w = 0
        var i = start
        while i < end {
            w += Int(glyphs[i].advance)
            if i > start { w += Int(glyphs[i].kern) }
            i += 1
        }
        return w
    }

    /// Advance width of `text` on one line, in pixels.
    public func measure(_ text: String, size: Int, weight: FontWeight = .regular) -> Int {
        shape(text, size: size, weight: weight, into: &shaped)
        return (Fonts.width(shaped, 0, shaped.count) + 63) >> 6
    }
}
