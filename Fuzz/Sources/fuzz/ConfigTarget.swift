import Config
import Glibc

/// The configuration file (/etc/headunit.conf) as a user may leave it on the
/// SD card: any bytes. The parser never fails; what it reads must survive the
/// console's `config` rendering and a second parse unchanged.
enum ConfigTarget {
    static let target = FuzzTarget(name: "config", run: run, seeds: seeds)

    static func run(_ data: [UInt8]) {
        let result = HeadUnitConfiguration.parse(data, file: "headunit.conf")
        invariant(result.diagnostics.count <= ConfigParser.maximumDiagnostics + 1,
                  "\(result.diagnostics.count) diagnostics, more than the limit")
        let known = Set(HeadUnitConfiguration.keyPaths)
        invariant(result.keysSet.isSubset(of: known), "keys set that do not exist: \(result.keysSet.subtracting(known))")
        let rendered = result.configuration.render()
        let again = HeadUnitConfiguration.parse(Array(rendered.utf8), file: "rendered")
        invariant(again.diagnostics.isEmpty, "the rendered configuration has diagnostics: \(again.diagnostics)\n\(rendered)")
        invariant(again.configuration == result.configuration, "the rendered configuration reads back differently:\n\(rendered)")
    }

    static func seeds() -> [(String, [UInt8])] {
        let example = readExample()
        let lines = [
            "[bluetooth]\nhci = uart:/dev/ttyAMA0:115200\ndevice-name = \"  Car # 1  \"\nio-capability = yes-no\nconfirm-key = KEY_OK\nprobe-interval = 90s\n",
            "[display]\noutput = png:/tmp/frames\nmode = 800x480@60\nrotation = 90\ntheme = dark\n",
            "[notifications]\napps = com.apple.Maps, com.google.Maps\ntitle-max = 80\n",
            "[bluetooth]\nhci = hci0\nhci = tcp:127.0.0.1:1234\n[nope]\nkey\n= value\nprobe-interval = 1d\n",
            "\u{FEFF}[log]\r\nlevel = debug\r\n",
            "[bluetooth]\rdevice-name = \"unterminated\r",
            "# only a comment",
        ]
        var out: [(String, [UInt8])] = []
        if !example.isEmpty {
            out.append(("example", example))
            out.append(("example-crlf", example.flatMap { $0 == 0x0A ? [0x0D, 0x0A] : [$0] }))
        }
        for (i, text) in lines.enumerated() { out.append(("lines-\(i)", Array(text.utf8))) }
        out.append(("binary", [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00]))
        return out
    }

    /// board/headunit.conf.example, when run from the repository.
    static func readExample() -> [UInt8] {
        guard let file = fopen("board/headunit.conf.example", "rb") else { return [] }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = fread(&buffer, 1, buffer.count, file)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return bytes
    }
}
