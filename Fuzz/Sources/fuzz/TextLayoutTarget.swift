import Graphics
import Glibc

/// Notification text as the phone sends it, any bytes, through the text
/// layout with every script font: bidi, script runs, font choice, HarfBuzz,
/// line breaking, ellipsis and drawing. Input: a width byte, a size byte,
/// then the text.
enum TextLayoutTarget {
    static let target = FuzzTarget(name: "text-layout", run: run, seeds: seeds)

    /// Loaded once: the family from fonts/ (scripts/fuzz runs from the
    /// repository) and the script fonts from their Debian packages.
    nonisolated(unsafe) static var fonts: Fonts?
    static let canvas = Canvas(width: 320, height: 120)

    static func load() -> Fonts {
        if let f = fonts { return f }
        let found = StandardFonts.locate(directory: nil) { access($0, R_OK) == 0 }
        for e in found.missing {
            fputs("text-layout: \(e.packageDirectory)/\(e.regular) missing: install \(e.package) (scripts/setup)\n", stderr)
            exit(1)
        }
        do {
            let f = try Fonts(regular: "fonts/DejaVuSans.ttf", bold: "fonts/DejaVuSans-Bold.ttf", scriptFonts: found.fonts,
                              glyphCacheBytes: 256 * 1024, shapeCacheBytes: 64 * 1024)
            fonts = f
            return f
        } catch {
            fputs("text-layout: \(error.description) (run from the repository)\n", stderr)
            exit(1)
        }
    }

    static func spaceless(_ s: [Unicode.Scalar]) -> [Unicode.Scalar] {
        s.filter { $0.value != 0x20 && $0.value != 0x3000 }
    }

    static func run(_ data: [UInt8]) {
        guard data.count >= 2 else { return }
        let fonts = load()
        let width = 1 + Int(data[0]) * 2
        let size = 6 + Int(data[1] % 64)
        let bytes = Array(data[2...])
        let weight: FontWeight = data[1] >= 128 ? .bold : .regular

        // Drawn: at most the lines asked for, never outside the canvas.
        let style = TextStyle(size: size, weight: weight, color: .white, alignment: data[0] & 1 == 0 ? .left : .right, maxLines: 3)
        let r = fonts.draw(utf8: bytes, in: Rect(x: 4, y: 4, width: width, height: 112), style: style, on: canvas)
        invariant(r.lines <= 3, "\(r.lines) lines drawn, at most 3 asked for")
        invariant(r.ink.isEmpty || canvas.bounds.contains(r.ink), "ink \(r.ink) outside the canvas")

        // Wrapped without a cut: the lines hold every character, in order,
        // losing only the spaces they were broken at.
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = fonts.wrap(text, width: width, size: size, weight: weight, maxLines: 10_000)
        var expected: [Unicode.Scalar] = []
        for s in text.unicodeScalars {
            let v = s.value
            expected.append(v < 0x20 || (v >= 0x7F && v < 0xA0) ? " " : s)
        }
        var got: [Unicode.Scalar] = []
        for l in lines { got += l.unicodeScalars }
        invariant(spaceless(got) == spaceless(expected), "wrapped lines lose or reorder characters: \(lines)")
        for l in lines where l.unicodeScalars.count > 1 {
            invariant(l.unicodeScalars.first?.value != 0x20, "a line starts with a space: \(lines)")
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        let texts: [(String, String)] = [
            ("latin", "Turn left onto Market Street toward Union Square"),
            ("arabic", "انعطف يسارًا إلى شارع الملك فهد بعد 300 م"),
            ("hebrew-mixed", "Turn onto רחוב הרצל (24) now"),
            ("devanagari", "300 मीटर बाद दाएँ मुड़ें, महात्मा गांधी मार्ग"),
            ("thai", "อีก 300 เมตร เลี้ยวขวาเข้าถนนสุขุมวิท"),
            ("japanese", "次の交差点を左折して、国道一号線に入り、東京駅方面へ進んでください。"),
            ("korean", "300m 앞에서 우회전 세종대로"),
            ("controls", "\u{202E}abc\u{2067}שלום\u{2069}\u{200D}\u{FE0F}\t\n\u{E000}"),
        ]
        var out: [(String, [UInt8])] = []
        for (i, (name, text)) in texts.enumerated() {
            out.append((name, [UInt8(40 + i * 20), UInt8(18 + i)] + Array(text.utf8)))
        }
        out.append(("invalid-utf8", [60, 20, 0x4F, 0xFF, 0xC3, 0x28, 0xE2, 0x82, 0xF0, 0x9F]))
        return out
    }
}
