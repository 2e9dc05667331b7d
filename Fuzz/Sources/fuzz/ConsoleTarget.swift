import BluetoothCore
@testable import App

/// Bytes typed on the serial console, cut into lines the way the console
/// does (CR or LF, at most 256 bytes), each parsed as a command.
enum ConsoleTarget {
    static let target = FuzzTarget(name: "console", run: run, seeds: seeds)

    static func run(_ data: [UInt8]) {
        var line: [UInt8] = []
        for byte in data + [0x0A] {
            guard byte == 0x0A || byte == 0x0D else {
                line.append(byte)
                continue
            }
            if line.count <= Console.maxLine { check(String(decoding: line, as: UTF8.self)) }
            line.removeAll()
        }
    }

    static func check(_ text: String) {
        let command = ConsoleCommand(line: text)
        invariant(ConsoleCommand(line: text) == command, "parsing is not deterministic")
        switch command {
        case .log(let level):
            invariant(LogLevel(name: level) != nil, "log command with unknown level \(level)")
        case .invalid(let message):
            invariant(!message.isEmpty, "invalid command without a message")
        case .empty:
            invariant(text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" }).isEmpty, "non-blank line parsed as empty")
        default:
            break
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        let lines = ["help", "?", "status", "scan", "connect", "disconnect", "unpair", "version", "log debug",
                     "log warning", "log loud", "status now", "  scan\t", "reboot", "", "log\tinfo\r",
                     "help\nstatus\r\nlog trace\n"]
        var out: [(String, [UInt8])] = []
        for (i, line) in lines.enumerated() { out.append(("line-\(i)", Array(line.utf8))) }
        out.append(("long-line", [UInt8](repeating: 0x61, count: 300) + [0x0A] + Array("status".utf8)))
        out.append(("invalid-utf8", [0x6C, 0x6F, 0x67, 0x20, 0xC3, 0x28, 0xFF]))
        return out
    }
}
