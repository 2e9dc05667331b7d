import Foundation
import Testing
import Graphics

enum TestFonts {
    static let root: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast(3)
        return parts.joined(separator: "/")
    }()
    static let regular = root + "/fonts/DejaVuSans.ttf"
    static let bold = root + "/fonts/DejaVuSans-Bold.ttf"

    static func load(fallbacks: [String] = [], cache: Int = 1_536 * 1024) throws -> Fonts {
        try Fonts(regular: regular, bold: bold, fallbacks: fallbacks, glyphCacheBytes: cache)
    }

    /// The family and every script font from the Debian font packages. A
    /// missing one fails the test that asked, naming the package: a test
    /// of Arabic shaping without the Arabic font would prove nothing.
    static func loadWithScripts() throws -> Fonts {
        let found = StandardFonts.locate(directory: nil) { FileManager.default.isReadableFile(atPath: $0) }
        if let e = found.missing.first {
            throw FontError(path: e.packageDirectory + "/" + e.regular, code: 0, reason: "missing: install \(e.package) (scripts/setup)")
        }
        return try Fonts(regular: regular, bold: bold, scriptFonts: found.fonts)
    }
}

extension Canvas {
    /// Pixels in `r` that are not `bg`.
    func inkCount(in r: Rect, background bg: Color) -> Int {
        var n = 0
        let c = r.intersection(bounds)
        if c.isEmpty { return 0 }
        for y in c.y..<c.maxY { for x in c.x..<c.maxX where pixels[y * width + x] != bg.pixel { n += 1 } }
        return n
    }

    /// Bounding box of pixels that are not `bg`.
    func inkBounds(background bg: Color) -> Rect {
        var r = Rect.empty
        for y in 0..<height { for x in 0..<width where pixels[y * width + x] != bg.pixel {
            r = r.union(Rect(x: x, y: y, width: 1, height: 1))
        } }
        return r
    }
}
