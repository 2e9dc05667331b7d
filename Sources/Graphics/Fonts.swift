import BluetoothCore
import CFreeType
import CHarfBuzz

/// A set of faces of one `Fonts`, by index: the faces a region drew with.
/// Faces past 63 are always counted in (never closed).
public struct FaceSet: Equatable {
    public private(set) var bits: UInt64 = 0

    public init() {}

    @inline(__always)
    public mutating func insert(_ face: Int) {
        if face < 64 { bits |= 1 << UInt64(face) }
    }

    public func contains(_ face: Int) -> Bool { face >= 64 || bits & (1 << UInt64(face)) != 0 }

    public mutating func formUnion(_ other: FaceSet) { bits |= other.bits }
}

public enum FontWeight: Int {
    case regular = 0
    case bold = 1
}

/// A font for particular scripts (ISO 15924 codes as HarfBuzz spells them:
/// "Arab", "Hebr", "Deva", "Thai", "Hani", "Hira", "Kana", "Hang"...): runs
/// of those scripts try it before the family. `bold` may be nil: bold text
/// of those scripts then uses `regular`.
public struct ScriptFont {
    public var scripts: [String]
    public var regular: String
    public var bold: String?

    public init(scripts: [String], regular: String, bold: String? = nil) {
        self.scripts = scripts
        self.regular = regular
        self.bold = bold
    }
}

/// The font set: regular and bold of the shipped family, fonts per script
/// (Arabic, Hebrew, CJK...) and a fallback chain searched for characters
/// none of those has; one bounded glyph cache shared by all of them, and a
/// cache of shaped paragraphs (ShapedParagraph.swift).
public final class Fonts {
    static let regularIndex = 0
    static let boldIndex = 1

    let library: FT_Library
    var faces: [FontFace] = []
    public let cache: GlyphCache
    let paragraphs: ShapeCache
    /// Faces of the fallback chain (after the family's two).
    var fallbackFaces: [Int] = []
    /// Per script, the faces to try first: regular, then bold.
    var scriptFaces: [(script: hb_script_t, regular: Int, bold: Int)] = []
    /// Reused by every shaping: HarfBuzz's buffer and the bidi scratch.
    let buffer: OpaquePointer
    let unicode: OpaquePointer
    var bidi = BidiLevels()
    let thaiWords = ThaiWordBreaks()
    var scripts: [hb_script_t] = []
    var runFaces: [Int] = []
    var candidates: [Int] = []
    /// Scratch of the line being drawn: its runs, their levels, visual order.
    var lineRuns: [ShapedRun] = []
    var lineLevels: [UInt8] = []
    var lineOrder: [Int] = []
    var lineGlyphs: [ShapedGlyph] = []

    /// Faces that drew glyphs since `takeDrawnFaces()` last asked.
    var drawn = FaceSet()

    /// Opens the two family faces (required) and checks the fallbacks (each
    /// one that fails to load is logged and skipped); the fallbacks and the
    /// script fonts are opened when a character is first asked of them, so
    /// Latin text never opens the CJK font (FontFace).
    public init(regular: String, bold: String, fallbacks: [String] = [], scriptFonts: [ScriptFont] = [],
                glyphCacheBytes: Int = 1_536 * 1024, shapeCacheBytes: Int = 256 * 1024) throws(FontError) {
        var lib: FT_Library?
        let err = FT_Init_FreeType(&lib)
        guard err == 0, let library = lib else {
            throw FontError(path: "", code: err, reason: "FreeType did not initialise")
        }
        self.library = library
        cache = GlyphCache(budget: glyphCacheBytes)
        paragraphs = ShapeCache(budget: shapeCacheBytes)
        buffer = hb_buffer_create()
        unicode = hb_unicode_funcs_get_default()
        // On a throw the object is already complete, so deinit releases the library.
        faces.append(try FontFace(library: library, path: regular))
        faces.append(try FontFace(library: library, path: bold))
        for path in fallbacks {
            if let i = addFace(path) { fallbackFaces.append(i) }
        }
        for font in scriptFonts {
            let r = addDeferredFace(font.regular)
            let b = font.bold.map { addDeferredFace($0) } ?? r
            for name in font.scripts {
                let script = name.withCString { hb_script_from_string($0, -1) }
                guard script != HB_SCRIPT_UNKNOWN && script != HB_SCRIPT_INVALID else {
                    Log.warning("fonts", "\(font.regular): unknown script '\(name)'")
                    continue
                }
                scriptFaces.append((script, r, b))
            }
        }
    }

    /// A fallback named in the configuration: opened now so that a wrong
    /// path is said at start, then closed until a character needs it.
    private func addFace(_ path: String) -> Int? {
        do {
            let face = try FontFace(library: library, path: path)
            face.close()
            faces.append(face)
            return faces.count - 1
        } catch {
            Log.warning("fonts", "font skipped: \(error.description)")
            return nil
        }
    }

    /// A script font, found by StandardFonts.locate: opened on first use
    /// (a file that then fails is logged and its script drawn as boxes).
    private func addDeferredFace(_ path: String) -> Int {
        faces.append(FontFace(library: library, deferredPath: path))
        return faces.count - 1
    }

    deinit {
        hb_buffer_destroy(buffer)
        // Faces belong to the library: release them first.
        faces.removeAll()
        FT_Done_FreeType(library)
    }

    /// Number of faces in the set (2 + usable fallbacks and script fonts).
    public var faceCount: Int { faces.count }

    /// Number of faces open now (the family's two and those in use).
    public var openFaceCount: Int { faces.reduce(0) { $0 + ($1.isOpen ? 1 : 0) } }

    /// Whether face `i` is open now.
    public func isOpen(_ i: Int) -> Bool { faces[i].isOpen }

    // MARK: what stays resident

    /// The faces that drew glyphs since the last call, and starts afresh.
    /// A renderer keeps them per region of its screen: their union is what
    /// is on screen (`closeFaces(except:)`).
    public func takeDrawnFaces() -> FaceSet {
        defer { drawn = FaceSet() }
        return drawn
    }

    /// Closes every face but the family and those in `onScreen`, and drops
    /// libthai's dictionary when no Thai face is on screen. What is drawn
    /// stays drawable without them: shaped paragraphs and rendered glyphs
    /// are cached by face index, and a face reopens on the next glyph the
    /// caches miss.
    public func closeFaces(except onScreen: FaceSet) {
        for i in 2..<max(2, faces.count) where faces[i].isOpen && !onScreen.contains(i) {
            faces[i].close()
        }
        let thai = scriptFaces.contains {
            $0.script == HB_SCRIPT_THAI && (onScreen.contains($0.regular) || onScreen.contains($0.bold))
        }
        if !thai { thaiWords.release() }
    }

    /// The file of face `i`, for diagnostics and tests.
    public func facePath(_ i: Int) -> String { faces[i].path }

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

    /// The cache slot of a glyph, rendering it on a miss; nil if FreeType
    /// cannot render it.
    @inline(__always)
    func glyph(face: Int, glyph: UInt32, size: Int) -> Int? {
        drawn.insert(face)
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

    /// Advance width of `text` on one line, in pixels.
    public func measure(_ text: String, size: Int, weight: FontWeight = .regular) -> Int {
        let p = paragraph(text, size: size, weight: weight)
        return (p.width(0, p.scalars.count) + 63) >> 6
    }
}
