import Foundation
import Testing
import Display
import Graphics
@testable import Screens
import ScreenValues

/// A turn instruction and a street per script, as the navigation card sets
/// them (a bold title over a two-line street), drawn with the script fonts:
/// compared with reference images in Golden/, and read back with tesseract.
@Suite(.serialized) struct ScriptTextTests {
    struct Sample {
        var name: String
        var title: String
        var street: String
        /// tesseract's language pack(s), when OCR reads this script reliably
        /// enough to check it (every sample today); nil when only the glyph
        /// checks of Tests/GraphicsTests/ShapingTests.swift vouch for it.
        var ocr: String?
    }

    /// name | tesseract language, or - | title | street
    static let table = """
        latin-es | spa | En 300 m, gire a la derecha | Calle de Alcalá, Málaga
        latin-de | deu | Nach 500 m rechts abbiegen | Königstraße, Düsseldorf
        latin-fr | fra | Dans 200 m, tournez à gauche | Rue de la Paix, Besançon
        cyrillic | rus | Через 300 м поверните направо | Тверская улица
        greek | ell | Σε 300 μ. στρίψτε δεξιά | Οδός Ερμού
        arabic | ara | بعد 300 م، انعطف يمينا | شارع الملك فهد
        hebrew | heb | בעוד 300 מטר פנו ימינה | רחוב הרצל
        japanese | jpn | 300m先、右方向です | 東京駅前通り
        chinese | chi_sim | 300米后右转 | 长安街
        korean | kor+eng | 300m 앞에서 우회전 | 세종대로
        hindi | hin | 300 मीटर बाद दाएँ मुड़ें | महात्मा गांधी मार्ग
        thai | tha | อีก 300 เมตร เลี้ยวขวา | ถนนสุขุมวิท
        """

    static let samples: [Sample] = table.split(separator: "\n").map { line in
        let f = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        return Sample(name: f[0], title: f[2], street: f[3], ocr: f[1] == "-" ? nil : f[1])
    }

    /// Title and street as the card sets them, `scale` times larger for OCR.
    static func render(_ s: Sample, fonts: Fonts, scale: Int = 1, ink: Color = .white, background: Color = .black) -> Canvas {
        let c = Canvas(width: 560 * scale, height: 130 * scale, fill: background)
        let m = 12 * scale
        fonts.draw(s.title, in: Rect(x: m, y: m, width: c.width - 2 * m, height: 40 * scale),
                   style: TextStyle(size: 26 * scale, weight: .bold, color: ink), on: c)
        fonts.draw(s.street, in: Rect(x: m, y: 56 * scale, width: c.width - 2 * m, height: 70 * scale),
                   style: TextStyle(size: 26 * scale, color: ink, maxLines: 2), on: c)
        return c
    }

    @Test(arguments: samples.map(\.name))
    func matchesTheReference(_ name: String) throws {
        let fonts = try TestFonts.loadWithScripts()
        let s = try #require(Self.samples.first { $0.name == name })
        GoldenImageTests.check(Self.render(s, fonts: fonts), name: "script-\(name)")
    }

    /// Levenshtein distance over Unicode scalars.
    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        var prev = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var cur = [i + 1] + [Int](repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                cur[j + 1] = min(prev[j + 1] + 1, cur[j] + 1, prev[j] + (x == y ? 0 : 1))
            }
            prev = cur
        }
        return prev[b.count]
    }

    /// Letters and digits only, lower case: OCR's spacing and punctuation
    /// are not what is under test.
    static func letters(_ s: String) -> [Unicode.Scalar] {
        s.lowercased().unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || CharacterSet.nonBaseCharacters.contains($0) }
    }

    static func tesseract() throws -> String {
        for dir in ["/usr/bin", "/usr/local/bin"] where FileManager.default.isExecutableFile(atPath: dir + "/tesseract") {
            return dir + "/tesseract"
        }
        throw FontError(path: "tesseract", code: 0, reason: "tesseract missing: install tesseract-ocr and its language packs (scripts/setup)")
    }

    /// Renders title and street dark on light at twice the size and reads
    /// them back: at most 10% of the letters may be read wrong.
    @Test(arguments: samples.filter { $0.ocr != nil }.map(\.name))
    func ocrReadsItBack(_ name: String) throws {
        let fonts = try TestFonts.loadWithScripts()
        let s = try #require(Self.samples.first { $0.name == name })
        let lang = try #require(s.ocr)
        let canvas = Self.render(s, fonts: fonts, scale: 2, ink: .black, background: .white)
        let png = NSTemporaryDirectory() + "ocr-\(name)-\(getpid()).png"
        defer { try? FileManager.default.removeItem(atPath: png) }
        let err = canvas.pixels.withUnsafeBufferPointer {
            PNGFile.write(path: png, width: canvas.width, height: canvas.height, stride: canvas.width, pixels: $0)
        }
        #expect(err == nil)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: try Self.tesseract())
        p.arguments = [png, "stdout", "-l", lang, "--psm", "6"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = Pipe()
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "tesseract -l \(lang) failed: is tesseract-ocr-\(lang.replacingOccurrences(of: "_", with: "-")) installed?")
        let read = String(decoding: data, as: UTF8.self)
        let expected = Self.letters(s.title + s.street)
        let got = Self.letters(read)
        let d = Self.distance(expected, got)
        print("ocr \(name): \(d) of \(expected.count) letters differ; read: \(read.split(separator: "\n").joined(separator: " | "))")
        #expect(d * 10 <= expected.count, "\(name): tesseract read '\(read)'")
    }

    /// The screens lay out text of any script inside their regions.
    @Test func screenPlacesTextOfEveryScript() throws {
        let fonts = try TestFonts.loadWithScripts()
        let model = ScreenModel(pairing: .connected(server: "هاتف سارة"), clock: "21:17",
                                navigation: NavigationInstruction(title: "300 م", message: "انعطف يسارًا إلى شارع الملك فهد باتجاه ميدان التحرير ثم استمر",
                                                                  app: "com.google.Maps"),
                                nowPlaying: NowPlaying(title: "戦場のメリークリスマス", artist: "坂本龍一", album: "סרט",
                                                       elapsed: 83, duration: 355, playing: true),
                                theme: .night)
        for size in GoldenImageTests.sizes {
            let canvas = Canvas(size: size)
            let renderer = ScreenRenderer(fonts: fonts)
            renderer.render(model, on: canvas)
            TextPlacement.verify(renderer: renderer, canvas: canvas, model: model, label: "scripts \(size.width)x\(size.height)")
            if let dir = ProcessInfo.processInfo.environment["SCRIPT_SCREEN_DIR"] {
                _ = canvas.pixels.withUnsafeBufferPointer {
                    PNGFile.write(path: dir + "/scripts-\(size.width)x\(size.height).png", width: canvas.width,
                                  height: canvas.height, stride: canvas.width, pixels: $0)
                }
            }
        }
    }
}
