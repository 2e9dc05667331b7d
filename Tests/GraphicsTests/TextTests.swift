import Testing
import Foundation
@testable import Graphics

@Suite(.serialized) struct TextTests {
    @Test func kerningTightensPairsTheFontKerns() throws {
        let fonts = try TestFonts.load()
        let pair = fonts.measure("AV", size: 48)
        let apart = fonts.measure("A", size: 48) + fonts.measure("V", size: 48)
        if fonts.faces[0].hasKerning {
            #expect(pair < apart)
        } else {
            #expect(pair == apart)
        }
    }

    @Test func wordWrapBreaksAtSpacesAndCutsTheLastLineWithAnEllipsis() throws {
        let fonts = try TestFonts.load()
        let text = "Turn left onto Market Street toward Union Square and continue for a very long time"
        let lines = fonts.wrap(text, width: 200, size: 20, maxLines: 2)
        #expect(lines.count == 2)
        #expect(lines[0] == "Turn left onto")
        #expect(lines[1].hasSuffix("\u{2026}"))
        for l in lines { #expect(fonts.measure(l, size: 20) <= 200) }
        // Enough room: no ellipsis, no line left out.
        let all = fonts.wrap(text, width: 2000, size: 20, maxLines: 3)
        #expect(all == [text])
        // A word longer than the line is broken, not dropped.
        let long = fonts.wrap("Supercalifragilisticexpialidocious", width: 120, size: 20, maxLines: 5)
        #expect(long.count > 1 && long.joined() == "Supercalifragilisticexpialidocious")
        // CJK breaks between characters.
        let cjk = fonts.wrap("今日は良い天気ですね今日は良い天気ですね", width: 100, size: 20, maxLines: 10)
        #expect(cjk.count > 1)
    }

    @Test func missingGlyphDrawsABoxAndInvalidBytesDrawReplacementCharacters() throws {
        let fonts = try TestFonts.load()
        let c = Canvas(width: 200, height: 60, fill: .black)
        // U+E000 (private use) is in no font; CJK is not in DejaVu Sans.
        let r = fonts.draw("\u{E000}漢", in: Rect(x: 10, y: 5, width: 180, height: 50), style: TextStyle(size: 30, color: .white), on: c)
        #expect(r.lines == 1)
        #expect(!r.ink.isEmpty)
        // The box is hollow: its centre is background.
        let box = c.inkBounds(background: .black)
        #expect(box.width > 10)
        #expect(c.pixel(x: r.ink.x + 8, y: r.ink.midY) == Color.black.pixel)

        let d = Canvas(width: 200, height: 60, fill: .black)
        let bytes: [UInt8] = [0x4F, 0x4B, 0xFF, 0xC3, 0x28, 0xE2, 0x82]
        let res = fonts.draw(utf8: bytes, in: Rect(x: 0, y: 0, width: 200, height: 60), style: TextStyle(size: 20, color: .white), on: d)
        #expect(res.lines == 1 && !res.ink.isEmpty)
    }

    @Test func differentSizesShareTheBaseline() throws {
        let fonts = try TestFonts.load()
        let c = Canvas(width: 300, height: 120, fill: .black)
        let big = fonts.draw("H", x: 10, baseline: 100, size: 80, weight: .bold, color: .white, on: c)
        let small = fonts.draw("H", x: 120, baseline: 100, size: 24, color: .white, on: c)
        #expect(big.ink.maxY == 100 && small.ink.maxY == 100)
        #expect(abs(big.ink.height - fonts.capHeight(size: 80, weight: .bold)) <= 1)
    }

    @Test func alignmentPlacesLinesInTheBox() throws {
        let fonts = try TestFonts.load()
        let box = Rect(x: 0, y: 0, width: 400, height: 40)
        for (alignment, check) in [(TextAlignment.left, 0), (.center, 1), (.right, 2)] {
            let c = Canvas(width: 400, height: 40, fill: .black)
            let r = fonts.draw("Hello", in: box, style: TextStyle(size: 24, color: .white, alignment: alignment), on: c)
            switch check {
            case 0: #expect(r.ink.x <= 4)
            case 1: #expect(abs(r.ink.midX - 200) <= 3)
            default: #expect(r.ink.maxX >= 396)
            }
        }
    }

    @Test func glyphCacheStaysWithinItsBudgetAndEvictsLeastRecentlyUsed() throws {
        let cache = GlyphCache(budget: 10_000)
        func bitmap(_ n: Int) -> GlyphBitmap {
            GlyphBitmap(width: Int32(n), height: 1, left: 0, top: 0, advance: 0, coverage: [UInt8](repeating: 1, count: n))
        }
        for g in 0..<5 { cache.insert(GlyphKey(face: 0, size: 10, glyph: UInt32(g)), bitmap(1936)) }  // 2000 bytes each
        #expect(cache.bytes == 10_000 && cache.count == 5)
        _ = cache.lookup(GlyphKey(face: 0, size: 10, glyph: 0))   // 0 is now most recent
        cache.insert(GlyphKey(face: 0, size: 10, glyph: 9), bitmap(1936))
        #expect(cache.bytes <= 10_000)
        #expect(cache.lookup(GlyphKey(face: 0, size: 10, glyph: 0)) != nil)
        #expect(cache.lookup(GlyphKey(face: 0, size: 10, glyph: 1)) == nil)  // least recently used went first
        #expect(cache.evictions == 1)

        // Real text at many sizes through a small cache.
        let fonts = try TestFonts.load(cache: 200_000)
        let c = Canvas(width: 800, height: 200)
        for size in stride(from: 12, through: 120, by: 6) {
            fonts.draw("The quick brown fox 0123456789", in: c.bounds, style: TextStyle(size: size, color: .white), on: c)
            #expect(fonts.cache.bytes <= 200_000)
        }
        #expect(fonts.cache.evictions > 0)
    }

    static let mathFont = "/usr/share/fonts/truetype/dejavu/DejaVuMathTeXGyre.ttf"

    /// A character the family lacks comes from the next font in the chain.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: mathFont)))
    func fallbackChainSuppliesMissingCharacters() throws {
        let plain = try TestFonts.load()
        let chained = try TestFonts.load(fallbacks: ["/nonexistent/font.ttf", Self.mathFont])
        #expect(chained.faceCount == 3)  // the missing file is skipped with a warning
        var found: UInt32?
        for s in UInt32(0x1D400)...UInt32(0x1D7FF) where plain.resolve(s, weight: .regular) == nil {
            if let (face, _) = chained.resolve(s, weight: .regular), face == 2 { found = s; break }
        }
        let scalar = try #require(found)
        let text = String(Character(Unicode.Scalar(scalar)!))
        let a = Canvas(width: 100, height: 60, fill: .black), b = Canvas(width: 100, height: 60, fill: .black)
        plain.draw(text, in: a.bounds, style: TextStyle(size: 40, color: .white), on: a)
        chained.draw(text, in: b.bounds, style: TextStyle(size: 40, color: .white), on: b)
        #expect(a.pixels != b.pixels)  // a real glyph instead of the box
    }

    @Test func badFontPathIsAnErrorNotACrash() {
        #expect(throws: FontError.self) { try Fonts(regular: "/nonexistent.ttf", bold: TestFonts.bold) }
    }
}

@Suite struct FontFacts {
    @Test func shippedFamilyHasKerning() throws {
        let fonts = try TestFonts.load()
        #expect(fonts.faces[0].hasKerning)
    }
}
