import BluetoothCore
import CFreeType
import CHarfBuzz

/// Why a font could not be used.
public struct FontError: Error, CustomStringConvertible {
    public var path: String
    /// FreeType error code (0 when the problem is ours).
    public var code: Int32
    public var reason: String

    public init(path: String, code: Int32, reason: String) {
        self.path = path
        self.code = code
        self.reason = reason
    }

    public var description: String { "font \(path): \(reason) (FreeType error \(code))" }
}

/// FreeType load flags (macros the importer cannot see).
enum FreeTypeFlags {
    static let render: Int32 = 1 << 2
    static let noBitmap: Int32 = 1 << 3
    /// FT_LOAD_TARGET_LIGHT: vertical-only hinting keeps glyph shapes and
    /// spacing true to the design while still snapping to the pixel rows.
    static let targetLight: Int32 = 1 << 16
    static let faceFlagKerning: Int = 1 << 6
    static let pixelModeMono: UInt8 = 1
    static let pixelModeGray: UInt8 = 2
}

/// One font file of the set. The family's two faces are opened at start
/// (their metrics place every line); every other face (the script fonts,
/// the fallbacks) is opened on the first character asked of it and closed
/// again when nothing drawn with it is on screen (`close()`): FreeType and
/// HarfBuzz copy tables out of the file, half a megabyte for the CJK font,
/// and both come back from the file in 1.5 ms (docs/FONTS.md). The file is
/// read with pread(2), not mapped (CFreeType's `nn_ft_open_face`).
/// Sizes are set lazily, only when a glyph must be rendered; cached glyphs,
/// metrics and kerning never touch FreeType's size.
final class FontFace {
    let path: String
    private let library: FT_Library
    private var opened: FT_Face?
    /// Opening failed once (logged): the face has no glyphs from then on.
    private var unusable = false
    private(set) var unitsPerEm: Int32 = 0
    private(set) var ascender: Int32 = 0
    private(set) var descender: Int32 = 0
    /// Whether the font has a kern table (HarfBuzz applies it, or GPOS kerning).
    private(set) var hasKerning = false
    private var currentSize = 0
    /// HarfBuzz's view of the same FT_Face (its tables, read through
    /// FreeType), made on the first shaping; positions come out in 26.6 at
    /// the scale set per call.
    private var shapingFont: OpaquePointer?

    /// Opens the file now; throws if it is not a usable scalable font.
    init(library: FT_Library, path: String) throws(FontError) {
        self.library = library
        self.path = path
        try open()
    }

    /// A face opened on first use; a file that then fails is logged once.
    init(library: FT_Library, deferredPath path: String) {
        self.library = library
        self.path = path
    }

    deinit { close() }

    var isOpen: Bool { opened != nil }

    private func open() throws(FontError) {
        var f: FT_Face?
        let err = nn_ft_open_face(library, path, 0, &f)
        guard err == 0, let face = f else {
            throw FontError(path: path, code: err, reason: "cannot open")
        }
        guard face.pointee.units_per_EM > 0 else {
            FT_Done_Face(face)
            throw FontError(path: path, code: 0, reason: "not a scalable font")
        }
        opened = face
        currentSize = 0
        unitsPerEm = Int32(face.pointee.units_per_EM)
        ascender = Int32(face.pointee.ascender)
        descender = Int32(face.pointee.descender)
        hasKerning = (Int(face.pointee.face_flags) & FreeTypeFlags.faceFlagKerning) != 0
    }

    /// The FreeType face, opening the file if it is closed; nil if it cannot be used.
    @inline(__always)
    private var face: FT_Face? {
        if let f = opened { return f }
        return reopen()
    }

    private func reopen() -> FT_Face? {
        if unusable { return nil }
        do {
            try open()
        } catch {
            unusable = true
            Log.warning("fonts", "font skipped: \(error.description)")
        }
        return opened
    }

    /// Releases the FreeType face and HarfBuzz's tables; the next use opens
    /// the file again. Glyph ids stay valid: the same file gives the same ids.
    func close() {
        // HarfBuzz holds a reference of its own on the FT_Face.
        if let f = shapingFont { hb_font_destroy(f) }
        shapingFont = nil
        if let f = opened { FT_Done_Face(f) }
        opened = nil
    }

    /// The HarfBuzz font, scaled so that positions are 26.6 pixels at `size`.
    func harfBuzzFont(size: Int) -> OpaquePointer? {
        if shapingFont == nil {
            guard let face, let hbFace = hb_ft_face_create_referenced(face) else { return nil }
            shapingFont = hb_font_create(hbFace)
            hb_face_destroy(hbFace)
        }
        guard let f = shapingFont else { return nil }
        let scale = Int32(size * 64)
        hb_font_set_scale(f, scale, scale)
        return f
    }

    @inline(__always)
    func glyphIndex(_ scalar: UInt32) -> UInt32 {
        guard let face else { return 0 }
        return UInt32(FT_Get_Char_Index(face, FT_ULong(scalar)))
    }

    /// Renders one glyph to an 8-bit coverage bitmap; nil on any FreeType error.
    func render(glyph: UInt32, size: Int) -> GlyphBitmap? {
        guard let face else { return nil }
        if size != currentSize {
            guard FT_Set_Pixel_Sizes(face, 0, FT_UInt(size)) == 0 else { return nil }
            currentSize = size
        }
        let flags = FreeTypeFlags.render | FreeTypeFlags.targetLight | FreeTypeFlags.noBitmap
        guard FT_Load_Glyph(face, FT_UInt(glyph), flags) == 0, let slot = face.pointee.glyph else { return nil }
        let bm = slot.pointee.bitmap
        let w = Int(bm.width), h = Int(bm.rows), pitch = Int(bm.pitch)
        var coverage = [UInt8](repeating: 0, count: w * h)
        if w > 0 && h > 0, let src = bm.buffer {
            let mode = bm.pixel_mode
            coverage.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    // A negative pitch means the rows are stored bottom-up.
                    let row = pitch >= 0 ? src + y * pitch : src + (h - 1 - y) * (-pitch)
                    for x in 0..<w {
                        if mode == FreeTypeFlags.pixelModeGray {
                            dst[y * w + x] = row[x]
                        } else if mode == FreeTypeFlags.pixelModeMono {
                            dst[y * w + x] = (row[x >> 3] & (0x80 >> UInt8(x & 7))) != 0 ? 255 : 0
                        }
                    }
                }
            }
        }
        // Unhinted advance (16.16) keeps text widths independent of hinting.
        let advance = Int32(truncatingIfNeeded: Int(slot.pointee.linearHoriAdvance) >> 10)
        return GlyphBitmap(width: Int32(w), height: Int32(h), left: Int32(slot.pointee.bitmap_left),
                           top: Int32(slot.pointee.bitmap_top), advance: advance, coverage: coverage)
    }
}
