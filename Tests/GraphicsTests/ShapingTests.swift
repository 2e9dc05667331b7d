import Testing
import Foundation
@testable import Graphics

/// Shaping, direction, font choice per script and line breaking, on the
/// shipped fonts (DejaVu Sans and the script fonts of StandardFonts).
@Suite(.serialized) struct ShapingTests {
    /// The glyphs of `text` on one line, left to right as drawn.
    static func visual(_ fonts: Fonts, _ text: String, size: Int = 32, weight: FontWeight = .regular) -> [ShapedGlyph] {
        let p = fonts.paragraph(text, size: size, weight: weight)
        var out: [ShapedGlyph] = []
        fonts.visualGlyphs(p, 0, p.scalars.count, into: &out)
        return out
    }

    static func fontFile(_ fonts: Fonts, _ g: ShapedGlyph) -> String {
        String(fonts.facePath(Int(g.face)).split(separator: "/").last ?? "")
    }

    static func glyphIndex(_ fonts: Fonts, face: Int16, _ scalar: UInt32) -> UInt32 {
        fonts.faces[Int(face)].glyphIndex(scalar)
    }

    @Test func arabicLettersJoin() throws {
        let fonts = try TestFonts.loadWithScripts()
        // بيت (house): beh, yeh, teh. Joined, beh takes its initial form and
        // yeh its medial form: glyphs other than the isolated letters'.
        let word = Self.visual(fonts, "\u{0628}\u{064A}\u{062A}")
        #expect(word.count == 3)
        #expect(word.allSatisfy { Self.fontFile(fonts, $0) == "NotoSansArabic-Regular.ttf" })
        let isolated: [UInt32] = [0x0628, 0x064A, 0x062A].map { Self.visual(fonts, String(Unicode.Scalar($0)!))[0].glyph }
        // Right to left: the last letter is drawn first (leftmost).
        let clusters = word.map { Int($0.cluster) }
        #expect(clusters == [2, 1, 0])
        #expect(word[2].glyph != isolated[0], "beh is not in its initial form")
        #expect(word[1].glyph != isolated[1], "yeh is not in its medial form")
        #expect(word[0].glyph != isolated[2], "teh is not in its final form")
        // Lam-alef becomes one ligature glyph for two characters.
        let lamAlef = Self.visual(fonts, "\u{0644}\u{0627}")
        #expect(lamAlef.count == 1)
    }

    @Test func hebrewAndArabicAreDrawnRightToLeft() throws {
        let fonts = try TestFonts.loadWithScripts()
        let hebrew = Self.visual(fonts, "שלום")
        #expect(hebrew.map { Int($0.cluster) } == [3, 2, 1, 0])
        #expect(hebrew.allSatisfy { Self.fontFile(fonts, $0) == "NotoSansHebrew-Regular.ttf" })
        let face = hebrew[0].face
        #expect(hebrew[0].glyph == Self.glyphIndex(fonts, face: face, 0x05DD))  // final mem, leftmost
        #expect(fonts.paragraph("שלום", size: 32, weight: .regular).rightToLeft)
        #expect(!fonts.paragraph("Hello", size: 32, weight: .regular).rightToLeft)
        // Numbers keep their order inside right-to-left text: "شارع 25" is
        // drawn "25" then the word, reversed.
        let street = Self.visual(fonts, "شارع 25")
        let clusters = street.map { Int($0.cluster) }
        #expect(clusters == [5, 6, 4, 3, 2, 1, 0])
    }

    @Test func mixedDirectionLineKeepsEachRunInItsOrder() throws {
        let fonts = try TestFonts.loadWithScripts()
        // An English paragraph with a Hebrew street name in it.
        let text = "Turn onto רחוב הרצל now"
        let g = Self.visual(fonts, text)
        let clusters = g.map { Int($0.cluster) }
        // "Turn onto " (0...9) left to right, then the Hebrew (10...18)
        // right to left, then " now" (19...22).
        let hebrew = Array(clusters[10..<19])
        #expect(Array(clusters[0..<10]) == Array(0..<10))
        #expect(hebrew == Array((10..<19).reversed()))
        #expect(Array(clusters[19...]) == Array(19..<23))
        #expect(!fonts.paragraph(text, size: 32, weight: .regular).rightToLeft)
    }

    @Test func rightToLeftParagraphsWrapInReadingOrder() throws {
        let fonts = try TestFonts.loadWithScripts()
        // Lines are cut on the logical text, then each is ordered for
        // display: the first line holds the first words, drawn from the right.
        let text = "המשיכו ישר ברחוב הרצל 24 ואז פנו שמאלה לכיוון Tel Aviv Center"
        let lines = fonts.wrap(text, width: 220, size: 24, maxLines: 10)
        #expect(lines.count > 2)
        #expect(lines.joined(separator: " ") == text)
        #expect(lines[0].hasPrefix("המשיכו"))
        let c = Canvas(width: 400, height: 300, fill: .black)
        let r = fonts.draw(text, in: Rect(x: 0, y: 0, width: 220, height: 300),
                           style: TextStyle(size: 24, color: .white, maxLines: 10), on: c)
        #expect(r.lines == lines.count)
        // Every line sits against the right edge of its box.
        for k in 0..<r.lines {
            let row = Rect(x: 0, y: k * TextStyle(size: 24, color: .white).lineAdvance, width: 400, height: 24)
            let ink = c.inkCount(in: Rect(x: 200, y: row.y, width: 20, height: row.height), background: .black)
            #expect(ink > 0, "line \(k) does not reach the right edge")
            #expect(c.inkCount(in: Rect(x: 221, y: row.y, width: 179, height: row.height), background: .black) == 0)
        }
    }

    @Test func bracketsAreMirroredInRightToLeftText() throws {
        let fonts = try TestFonts.loadWithScripts()
        let g = Self.visual(fonts, "(שלום)")
        // The leftmost glyph is the closing bracket of the text, drawn as "(".
        #expect(g.first.map { Int($0.cluster) } == 5)
        let open = try #require(g.first)
        #expect(open.glyph == Self.glyphIndex(fonts, face: open.face, 0x28))
        let close = try #require(g.last)
        #expect(close.glyph == Self.glyphIndex(fonts, face: close.face, 0x29))
    }

    @Test func devanagariVowelSignsAreReorderedAndMarksPlaced() throws {
        let fonts = try TestFonts.loadWithScripts()
        // कि: the i-sign is written after ka but drawn before it.
        let ki = Self.visual(fonts, "कि")
        #expect(ki.allSatisfy { Self.fontFile(fonts, $0) == "NotoSansDevanagari-Regular.ttf" })
        #expect(ki.count == 2)
        let face = ki[0].face
        #expect(ki[1].glyph == Self.glyphIndex(fonts, face: face, 0x0915))
        #expect(ki[0].glyph != Self.glyphIndex(fonts, face: face, 0x0915))
        // One cluster: a line never breaks between a consonant and its sign.
        #expect(ki.allSatisfy { $0.cluster == 0 })
        // के: the e-sign sits above ka, taking no room of its own.
        let ke = Self.visual(fonts, "के")
        #expect(ke.count == 2)
        let mark = try #require(ke.first { $0.glyph != Self.glyphIndex(fonts, face: face, 0x0915) })
        #expect(mark.advance == 0 || mark.xOffset != 0)
        // Conjuncts: क्ष is one glyph.
        #expect(Self.visual(fonts, "क्ष").count == 1)
        #expect(fonts.measure("नमस्ते", size: 32) > 0)
    }

    @Test func thaiMarksStackWithoutTakingRoom() throws {
        let fonts = try TestFonts.loadWithScripts()
        // กี่: ko kai, sara ii, mai ek: the two marks sit above the consonant.
        let g = Self.visual(fonts, "กี่")
        #expect(g.allSatisfy { Self.fontFile(fonts, $0) == "NotoSansThai-Regular.ttf" })
        #expect(g.count == 3)
        #expect(g[1].advance == 0 && g[2].advance == 0)
        // Stacked: the tone mark is raised above the vowel, or moved aside.
        #expect(g[2].yOffset != 0 || g[2].xOffset != 0 || g[2].glyph != Self.glyphIndex(fonts, face: g[2].face, 0x0E48))
    }

    @Test func thaiWithoutSpacesWrapsBetweenWords() throws {
        let fonts = try TestFonts.loadWithScripts()
        // "Turn left at Sukhumvit Road, then go straight two more kilometres",
        // written as Thai is, without spaces.
        let words = ["เลี้ยว", "ซ้าย", "ที่", "ถนน", "สุขุมวิท", "แล้ว", "ตรง", "ไป", "อีก", "สอง", "กิโลเมตร"]
        let text = words.joined()
        var ends: Set<Int> = []
        var at = 0
        for w in words { at += w.unicodeScalars.count; ends.insert(at) }
        let lines = fonts.wrap(text, width: 160, size: 24, maxLines: 10)
        print("thai lines: \(lines)")
        #expect(lines.count > 1)
        #expect(lines.joined() == text)
        // Every line ends where a word ends (libthai's dictionary).
        var end = 0
        for l in lines {
            end += l.unicodeScalars.count
            #expect(ends.contains(end), "line '\(l)' ends inside a word")
        }
        for l in lines {
            #expect(fonts.measure(l, size: 24) <= 160)
            // No line starts with a combining mark or ends with a leading vowel.
            let first = try #require(l.unicodeScalars.first).value
            #expect(!(first >= 0x0E31 && first <= 0x0E3A) && !(first >= 0x0E47 && first <= 0x0E4E), "\(l)")
            let last = try #require(l.unicodeScalars.last).value
            #expect(!(last >= 0x0E40 && last <= 0x0E44), "\(l)")
        }
    }

    @Test func cjkBreaksBetweenIdeographsAndKeepsKinsoku() throws {
        let fonts = try TestFonts.loadWithScripts()
        let text = "次の交差点を左折して、国道一号線に入り、東京駅方面へ進んでください。"
        for width in [90, 130, 170, 230] {
            let lines = fonts.wrap(text, width: width, size: 24, maxLines: 20)
            #expect(lines.count > 1)
            #expect(lines.joined() == text)
            for l in lines {
                #expect(fonts.measure(l, size: 24) <= width + 24, "\(l)")  // a kinsoku carry may overhang one character
                let first = try #require(l.unicodeScalars.first).value
                #expect(first != 0x3001 && first != 0x3002, "line starts with punctuation: \(l)")
            }
        }
        // Chinese and Korean come from the CJK font too.
        for s in ["前方路口左转", "좌회전하세요", "ひだりにまがる"] {
            let g = Self.visual(fonts, s)
            #expect(g.allSatisfy { Self.fontFile(fonts, $0) == "wqy-microhei.ttc" && $0.glyph != 0 },
                    "\(s): \(g.map { Self.fontFile(fonts, $0) })")
        }
    }

    @Test func fontIsChosenPerScriptThenPerMissingCharacter() throws {
        let fonts = try TestFonts.loadWithScripts()
        let cases: [(String, FontWeight, String)] = [
            ("Calle de Alcalá", .regular, "DejaVuSans.ttf"),
            ("Straße", .bold, "DejaVuSans-Bold.ttf"),
            ("Тверская улица", .regular, "DejaVuSans.ttf"),
            ("Οδός Ερμού", .regular, "DejaVuSans.ttf"),
            ("شارع الملك فهد", .regular, "NotoSansArabic-Regular.ttf"),
            ("شارع الملك فهد", .bold, "NotoSansArabic-Bold.ttf"),
            ("רחוב הרצל", .regular, "NotoSansHebrew-Regular.ttf"),
            ("महात्मा गांधी मार्ग", .regular, "NotoSansDevanagari-Regular.ttf"),
            ("ถนนสุขุมวิท", .regular, "NotoSansThai-Regular.ttf"),
            ("東京駅", .regular, "wqy-microhei.ttc"),
            ("東京駅", .bold, "wqy-microhei.ttc"),  // one weight for CJK
        ]
        for (text, weight, file) in cases {
            let g = Self.visual(fonts, text, weight: weight)
            #expect(!g.isEmpty)
            #expect(g.allSatisfy { Self.fontFile(fonts, $0) == file }, "\(text): \(g.map { Self.fontFile(fonts, $0) })")
            #expect(g.allSatisfy { $0.glyph != 0 }, "\(text) has a missing glyph")
        }
        // A character the Hebrew font lacks inside Hebrew text comes from
        // the next font that has it, the rest stays Hebrew.
        let g = Self.visual(fonts, "שלום ☺")
        let files = Set(g.map { Self.fontFile(fonts, $0) })
        #expect(files == ["NotoSansHebrew-Regular.ttf", "DejaVuSans.ttf"])
        #expect(g.allSatisfy { $0.glyph != 0 })
    }

    @Test func characterNoFontHasIsABox() throws {
        let fonts = try TestFonts.loadWithScripts()
        // U+E000 (private use) is in no font, here inside Arabic text.
        let g = Self.visual(fonts, "شارع\u{E000}")
        #expect(g.contains { $0.glyph == 0 && $0.advance > 0 })
        let c = Canvas(width: 300, height: 60, fill: .black)
        let r = fonts.draw("\u{E000}", in: Rect(x: 10, y: 5, width: 280, height: 50), style: TextStyle(size: 30, color: .white), on: c)
        #expect(!r.ink.isEmpty && r.ink.width >= 10)
        #expect(c.pixel(x: r.ink.midX, y: r.ink.midY) == Color.black.pixel)  // hollow
    }

    @Test func ellipsisEndsTheLineInReadingOrder() throws {
        let fonts = try TestFonts.loadWithScripts()
        let style = TextStyle(size: 28, color: .white)
        // Drawn alone, the ellipsis is three dots on the baseline.
        let dots = Canvas(width: 100, height: 60, fill: .black)
        let e = fonts.draw("\u{2026}", in: Rect(x: 0, y: 0, width: 100, height: 60), style: style, on: dots)
        let dotTop = e.ink.y

        func ends(_ text: String) -> (left: Bool, right: Bool) {
            let c = Canvas(width: 400, height: 60, fill: .black)
            let r = fonts.draw(text, in: Rect(x: 0, y: 0, width: 400, height: 60), style: style, on: c)
            #expect(r.truncated)
            // Is the ink of the leftmost / rightmost dot's width only dots
            // (nothing above the dots' top)?
            func onlyDots(_ x0: Int, _ x1: Int) -> Bool {
                c.inkCount(in: Rect(x: x0, y: 0, width: x1 - x0, height: dotTop - 1), background: .black) == 0
                    && c.inkCount(in: Rect(x: x0, y: dotTop, width: x1 - x0, height: e.ink.height), background: .black) > 0
            }
            let w = e.ink.width / 3
            return (onlyDots(r.ink.x, r.ink.x + w), onlyDots(r.ink.maxX - w, r.ink.maxX))
        }
        let english = ends("Continue on the motorway towards the city centre for a very long way")
        #expect(english == (false, true))
        let hebrew = ends("המשיכו בכביש המהיר לכיוון מרכז העיר לאורך דרך ארוכה מאוד מאוד")
        #expect(hebrew == (true, false))
        let arabic = ends("استمر على الطريق السريع باتجاه وسط المدينة لمسافة طويلة جدا جدا")
        #expect(arabic == (true, false))
        // A right-to-left paragraph set `left` sits against the right edge.
        let c = Canvas(width: 400, height: 60, fill: .black)
        let r = fonts.draw("שלום", in: Rect(x: 0, y: 0, width: 400, height: 60), style: style, on: c)
        #expect(r.ink.maxX >= 396)
    }

    @Test func shapedParagraphsAreCachedAndBounded() throws {
        let fonts = try Fonts(regular: TestFonts.regular, bold: TestFonts.bold, shapeCacheBytes: 20_000)
        let a = fonts.paragraph("Market Street", size: 30, weight: .regular)
        #expect(fonts.paragraph("Market Street", size: 30, weight: .regular) === a)
        #expect(fonts.paragraph("Market Street", size: 31, weight: .regular) !== a)
        #expect(fonts.paragraph("Market Street", size: 30, weight: .bold) !== a)
        for i in 0..<500 { _ = fonts.paragraph("Street number \(i) of a long list", size: 30, weight: .regular) }
        #expect(fonts.paragraphs.bytes <= 20_000)
        #expect(fonts.paragraphs.count < 500)
    }

    @Test func arbitraryBytesNeverCrashTheLayout() throws {
        let fonts = try TestFonts.loadWithScripts()
        var rng = SystemRandomNumberGenerator()
        let c = Canvas(width: 200, height: 100)
        let pieces: [[UInt8]] = [Array("שלום".utf8), Array("شارع".utf8), Array("कि".utf8), Array("東京".utf8),
                                 Array("\u{202E}\u{2067}(".utf8), [0xFF, 0xC3], [0x20], Array("กี่".utf8), [0xE2, 0x80, 0x8D]]
        for _ in 0..<300 {
            var bytes: [UInt8] = []
            for _ in 0..<Int.random(in: 0...12, using: &rng) {
                if Bool.random(using: &rng) { bytes += pieces.randomElement(using: &rng)! } else { bytes.append(UInt8.random(in: 0...255, using: &rng)) }
            }
            let r = fonts.draw(utf8: bytes, in: Rect(x: 0, y: 0, width: Int.random(in: 1...200, using: &rng), height: 100),
                               style: TextStyle(size: 16, color: .white, maxLines: 3), on: c)
            #expect(r.lines <= 3)
        }
    }
}
