/// The fonts the head unit uses for the scripts its family (DejaVu Sans:
/// Latin, Greek, Cyrillic) lacks or sets poorly, by file name, and the
/// Debian package folder each comes from. The image installs them beside
/// DejaVu in /usr/share/headunit/fonts; a development machine has them from
/// the Debian packages that scripts/setup installs. docs/FONTS.md has the
/// choice and the size budget.
public enum StandardFonts {
    public struct Entry {
        /// ISO 15924 script codes, as HarfBuzz spells them.
        public var scripts: [String]
        public var regular: String
        public var bold: String?
        /// Where the Debian package puts the files.
        public var packageDirectory: String
        public var package: String
    }

    /// A Noto Sans family of fonts-noto-core, regular and bold.
    static func noto(_ script: String, _ family: String) -> Entry {
        Entry(scripts: [script], regular: family + "-Regular.ttf", bold: family + "-Bold.ttf",
              packageDirectory: "/usr/share/fonts/truetype/noto", package: "fonts-noto-core")
    }

    public static let entries: [Entry] = [
        noto("Arab", "NotoSansArabic"),
        noto("Hebr", "NotoSansHebrew"),
        noto("Deva", "NotoSansDevanagari"),
        noto("Beng", "NotoSansBengali"),
        noto("Taml", "NotoSansTamil"),
        noto("Thai", "NotoSansThai"),
        // One font, one weight, for Chinese, Japanese and Korean (WenQuanYi
        // Micro Hei has Hangul, Droid Sans Fallback has not): 5 MB, 1.5 MB
        // compressed, where Noto Sans CJK is 20 MB per weight.
        Entry(scripts: ["Hani", "Hira", "Kana", "Hang", "Bopo"], regular: "wqy-microhei.ttc", bold: nil,
              packageDirectory: "/usr/share/fonts/truetype/wqy", package: "fonts-wqy-microhei"),
    ]

    /// The script fonts found in `directory` or else in their package's
    /// folder (`readable` says whether a path can be opened), and the
    /// entries found in neither.
    public static func locate(directory: String?, readable: (String) -> Bool) -> (fonts: [ScriptFont], missing: [Entry]) {
        var fonts: [ScriptFont] = []
        var missing: [Entry] = []
        for e in entries {
            var found: String?
            var dirs: [String] = []
            if let d = directory { dirs.append(d) }
            dirs.append(e.packageDirectory)
            for d in dirs where readable(d + "/" + e.regular) { found = d; break }
            guard let dir = found else {
                missing.append(e)
                continue
            }
            let bold = e.bold.map { dir + "/" + $0 }.flatMap { readable($0) ? $0 : nil }
            fonts.append(ScriptFont(scripts: e.scripts, regular: dir + "/" + e.regular, bold: bold))
        }
        return (fonts, missing)
    }
}
