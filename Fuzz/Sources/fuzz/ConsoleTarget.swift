import BluetoothCore
import Console

/// Bytes typed on the serial console (a terminal's escape sequences,
/// backspaces, CR/LF/CRLF, over-long lines) in input-chosen pieces, cut into
/// lines and parsed as commands.
enum ConsoleTarget {
    static let target = FuzzTarget(name: "console", run: run, seeds: seeds)

    static func run(_ data: [UInt8]) {
        var random = SplitMix(seed: SplitMix.seed(data))
        var whole = ConsoleLineReader()
        let expected = whole.receive(data)
        var reader = ConsoleLineReader()
        var inputs: [ConsoleLineReader.Input] = []
        var start = 0
        while start < data.count {
            let end = min(data.count, start + 1 + random.below(16))
            inputs += reader.receive(Array(data[start..<end]))
            start = end
        }
        invariant(inputs == expected, "lines depend on how the input was cut")
        for input in inputs {
            guard case .line(let line) = input else { continue }
            // Invalid UTF-8 grows into U+FFFD, so count scalars: at most one per byte typed.
            invariant(line.unicodeScalars.count <= reader.maximumLength, "a line of \(line.unicodeScalars.count) characters passed")
            check(line)
        }
    }

    static func check(_ line: String) {
        let command = ConsoleCommand(line: line)
        invariant(ConsoleCommand(line: line) == command, "parsing is not deterministic")
        switch command {
        case .forget(let name):
            invariant((1...ConsoleCommand.maximumServerNameBytes).contains(name.utf8.count), "forget with a bad SERVER NAME")
        case .media(let c):
            invariant(ConsoleCommand.mediaCommands.contains(c), "media command \(c) is not offered")
        case .screenshot(let file):
            invariant(file.lowercased().hasSuffix(".png"), "screenshot to \(file)")
        case .invalid(let message):
            invariant(!message.isEmpty, "invalid command without an answer")
        default:
            break
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        let lines = ["help", "?", "status", "scan", "connect", "disconnect", "unpair", "bonds", "forget Anna-iPhone-7F3A",
                     "forget   two words  ", "notifications", "now-playing", "action 42 positive", "action 0x2A negative",
                     "media play", "media volume-up", "media eject", "log debug", "LOG Warn", "trace on /tmp/hci.btsnoop",
                     "trace off", "screenshot /tmp/screen.png", "screenshot x.jpg", "config", "version", "reboot",
                     "status now", "reboot\r\nversion\rhelp\n", "  scan\t", "bogus"]
        var out: [(String, [UInt8])] = []
        for (i, line) in lines.enumerated() { out.append(("line-\(i)", Array((line + "\n").utf8))) }
        out.append(("long-line", [UInt8](repeating: 0x61, count: 300) + [0x0D] + Array("status\r".utf8)))
        out.append(("arrow-keys-and-backspace", Array("scna".utf8) + [0x7F, 0x7F, 0x1B, 0x5B, 0x41] + Array("an\r".utf8)))
        out.append(("utf8-backspace", Array("forget Zoë".utf8) + [0x08] + Array("e\n".utf8)))
        out.append(("invalid-utf8", [0x6C, 0x6F, 0x67, 0x20, 0xC3, 0x28, 0xFF, 0x0A]))
        return out
    }
}
