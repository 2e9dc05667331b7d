import Testing
import Graphics

/// The script fonts open on first use and close when nothing on screen was
/// drawn with them (docs/FONTS.md, "What stays in memory").
@Suite struct FontResidencyTests {
    static func cjkFace(_ fonts: Fonts) -> Int? {
        (2..<fonts.faceCount).first { fonts.facePath($0).hasSuffix("wqy-microhei.ttc") }
    }

    @Test func latinTextNeverOpensAScriptFont() throws {
        let fonts = try TestFonts.loadWithScripts()
        #expect(fonts.faceCount > 2)
        #expect(fonts.openFaceCount == 2)
        let canvas = Canvas(width: 600, height: 120, fill: .black)
        fonts.draw("In 300 m, turn left onto Market Street…", in: canvas.bounds,
                   style: TextStyle(size: 30, weight: .bold, color: .white, maxLines: 2), on: canvas)
        fonts.draw("Calle de Alcalá, Königstraße", in: canvas.bounds, style: TextStyle(size: 22, color: .white), on: canvas)
        #expect(fonts.openFaceCount == 2)
        #expect(fonts.takeDrawnFaces() == { var s = FaceSet(); s.insert(0); s.insert(1); return s }())
    }

    @Test func aFaceOffScreenClosesAndDrawsTheSameWhenItComesBack() throws {
        let fonts = try TestFonts.loadWithScripts()
        let cjk = try #require(Self.cjkFace(fonts))
        #expect(!fonts.isOpen(cjk))
        let first = Canvas(width: 300, height: 80, fill: .black)
        _ = fonts.takeDrawnFaces()
        fonts.draw("国道1号線", in: first.bounds, style: TextStyle(size: 30, color: .white), on: first)
        let onScreen = fonts.takeDrawnFaces()
        #expect(fonts.isOpen(cjk) && onScreen.contains(cjk))

        // Still on screen: kept. Off screen: closed, and the family stays.
        fonts.closeFaces(except: onScreen)
        #expect(fonts.isOpen(cjk))
        fonts.closeFaces(except: FaceSet())
        #expect(!fonts.isOpen(cjk))
        #expect(fonts.openFaceCount == 2)

        // The same text again comes from the caches, without the face.
        let again = Canvas(width: 300, height: 80, fill: .black)
        fonts.draw("国道1号線", in: again.bounds, style: TextStyle(size: 30, color: .white), on: again)
        #expect(!fonts.isOpen(cjk))
        #expect(again.pixels == first.pixels)

        // New text reopens it, and draws as a font set that never closed it.
        let reopened = Canvas(width: 300, height: 80, fill: .black)
        fonts.draw("東京駅前通り", in: reopened.bounds, style: TextStyle(size: 40, color: .white), on: reopened)
        #expect(fonts.isOpen(cjk))
        let fresh = Canvas(width: 300, height: 80, fill: .black)
        try TestFonts.loadWithScripts().draw("東京駅前通り", in: fresh.bounds, style: TextStyle(size: 40, color: .white), on: fresh)
        #expect(reopened.pixels == fresh.pixels)
    }
}
