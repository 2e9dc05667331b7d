import AMS
import ANCS
import BluetoothCore
import Testing
@testable import Console

@Suite struct ConsoleCommandTests {
    @Test func commandsWithoutArguments() {
        let table: [(String, ConsoleCommand)] = [
            ("help", .help), ("?", .help), ("status", .status), ("scan", .scan), ("connect", .connect),
            ("disconnect", .disconnect), ("unpair", .unpair), ("bonds", .bonds), ("notifications", .notifications),
            ("now-playing", .nowPlaying), ("config", .config), ("version", .version), ("reboot", .reboot),
            ("confirm", .confirm), ("cancel", .cancel),
        ]
        for (line, command) in table {
            #expect(ConsoleCommand(line: line) == command, "\(line)")
            #expect(ConsoleCommand(line: "  \(line)\t\r") == command, "\(line) with blanks")
            #expect(ConsoleCommand(line: line.uppercased()) == command, "\(line) in capitals")
            #expect(ConsoleCommand(line: "\(line) extra") == .invalid("usage: \(line) (takes no arguments)"))
        }
    }

    @Test func emptyLines() {
        #expect(ConsoleCommand(line: "") == .empty)
        #expect(ConsoleCommand(line: "   \t ") == .empty)
        #expect(ConsoleCommand(line: "\r") == .empty)
    }

    @Test func unknownCommand() {
        #expect(ConsoleCommand(line: "frobnicate now") == .invalid("unknown command 'frobnicate'; type help"))
        #expect(ConsoleCommand(line: "nowplaying") == .invalid("unknown command 'nowplaying'; type help"))
    }

    @Test func forget() {
        #expect(ConsoleCommand(line: "forget Pixel-7F3A") == .forget("Pixel-7F3A"))
        #expect(ConsoleCommand(line: "forget  Anna's iPhone  ") == .forget("Anna's iPhone"))
        #expect(ConsoleCommand(line: "forget Zoë") == .forget("Zoë"))
        #expect(ConsoleCommand(line: "forget " + String(repeating: "x", count: 32)) == .forget(String(repeating: "x", count: 32)))
        #expect(ConsoleCommand(line: "forget " + String(repeating: "x", count: 33)) == .invalid("usage: forget NAME"))
        // 17 two-byte letters are 34 bytes: too long.
        #expect(ConsoleCommand(line: "forget " + String(repeating: "é", count: 17)) == .invalid("usage: forget NAME"))
        #expect(ConsoleCommand(line: "forget") == .invalid("usage: forget NAME"))
        #expect(ConsoleCommand(line: "forget   ") == .invalid("usage: forget NAME"))
    }

    @Test func action() {
        #expect(ConsoleCommand(line: "action 42 positive") == .action(NotificationUID(42), .positive))
        #expect(ConsoleCommand(line: "action 4294967295 NEGATIVE") == .action(NotificationUID(0xFFFF_FFFF), .negative))
        #expect(ConsoleCommand(line: "action 0x2a negative") == .action(NotificationUID(42), .negative))
        let usage = ConsoleCommand.invalid("usage: action UID positive|negative")
        #expect(ConsoleCommand(line: "action") == usage)
        #expect(ConsoleCommand(line: "action 42") == usage)
        #expect(ConsoleCommand(line: "action 42 maybe") == usage)
        #expect(ConsoleCommand(line: "action -1 positive") == usage)
        #expect(ConsoleCommand(line: "action 4294967296 positive") == usage)
        #expect(ConsoleCommand(line: "action positive 42") == usage)
        #expect(ConsoleCommand(line: "action 42 positive now") == usage)
    }

    @Test func media() {
        let table: [(String, RemoteCommandID)] = [("play", .play), ("pause", .pause), ("toggle", .togglePlayPause),
                                                  ("next", .nextTrack), ("previous", .previousTrack),
                                                  ("volume-up", .volumeUp), ("volume-down", .volumeDown)]
        for (word, command) in table {
            #expect(ConsoleCommand(line: "media \(word)") == .media(command))
        }
        let usage = ConsoleCommand.invalid("usage: media play|pause|toggle|next|previous|volume-up|volume-down")
        #expect(ConsoleCommand(line: "media") == usage)
        #expect(ConsoleCommand(line: "media like") == usage) // AMS has it; the console does not offer it
        #expect(ConsoleCommand(line: "media louder") == usage)
        #expect(ConsoleCommand(line: "media play pause") == usage)
    }

    @Test func log() {
        #expect(ConsoleCommand(line: "log debug") == .log(.debug))
        #expect(ConsoleCommand(line: "log warn") == .log(.warning))
        #expect(ConsoleCommand(line: "log warning") == .log(.warning))
        #expect(ConsoleCommand(line: "log TRACE") == .log(.trace))
        let usage = ConsoleCommand.invalid("usage: log error|warn|info|debug|trace")
        #expect(ConsoleCommand(line: "log") == usage)
        #expect(ConsoleCommand(line: "log loud") == usage)
        #expect(ConsoleCommand(line: "log info debug") == usage)
    }

    @Test func trace() {
        #expect(ConsoleCommand(line: "trace on /tmp/hci.btsnoop") == .traceOn("/tmp/hci.btsnoop"))
        #expect(ConsoleCommand(line: "trace on /tmp/hci.btsnoop keys") == .traceOnKeepingKeys("/tmp/hci.btsnoop"))
        #expect(ConsoleCommand(line: "trace off") == .traceOff)
        #expect(ConsoleCommand(line: "trace OFF") == .traceOff)
        let usage = ConsoleCommand.invalid("usage: trace on FILE [keys] | trace off")
        #expect(ConsoleCommand(line: "trace") == usage)
        #expect(ConsoleCommand(line: "trace on") == usage)
        #expect(ConsoleCommand(line: "trace off now") == usage)
        #expect(ConsoleCommand(line: "trace /tmp/x") == usage)
    }

    @Test func screenshot() {
        #expect(ConsoleCommand(line: "screenshot /tmp/screen.png") == .screenshot("/tmp/screen.png"))
        #expect(ConsoleCommand(line: "screenshot shot.PNG") == .screenshot("shot.PNG"))
        let usage = ConsoleCommand.invalid("usage: screenshot FILE.png")
        #expect(ConsoleCommand(line: "screenshot") == usage)
        #expect(ConsoleCommand(line: "screenshot .png") == usage)
        #expect(ConsoleCommand(line: "screenshot shot.jpg") == usage)
        #expect(ConsoleCommand(line: "screenshot a.png b.png") == usage)
    }

    @Test func usageNamesEveryCommand() {
        for verb in ["help", "status", "scan", "connect", "disconnect", "unpair", "bonds", "forget", "notifications",
                     "now-playing", "action", "media", "log", "trace", "screenshot", "config", "version", "reboot"] {
            #expect(ConsoleCommand.usage.split(separator: "\n").contains { $0.split(separator: " ").first.map(String.init) == verb },
                    "\(verb) missing from usage")
        }
    }

    @Test func garbageNeverTraps() {
        var seed: UInt64 = 0x1234_5678
        for _ in 0..<2000 {
            var bytes: [UInt8] = []
            for _ in 0..<Int(seed % 40) {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                bytes.append(UInt8(truncatingIfNeeded: seed >> 33))
            }
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            _ = ConsoleCommand(line: String(decoding: bytes, as: UTF8.self))
        }
    }
}

@Suite struct ConsoleLineReaderTests {
    func lines(_ chunks: [String], max: Int = 256) -> [ConsoleLineReader.Input] {
        var r = ConsoleLineReader(maximumLength: max)
        return chunks.flatMap { r.receive(Array($0.utf8)) }
    }

    @Test func lineEndings() {
        #expect(lines(["status\n"]) == [.line("status")])
        #expect(lines(["status\r"]) == [.line("status")])
        #expect(lines(["status\r\n", "scan\n"]) == [.line("status"), .line("scan")])
        #expect(lines(["a\n\nb\n"]) == [.line("a"), .line(""), .line("b")])
    }

    @Test func partialLinesWait() {
        #expect(lines(["sta", "tus"]).isEmpty)
        #expect(lines(["sta", "tus", "\r", "\n"]) == [.line("status")])
    }

    @Test func editing() {
        #expect(lines(["scam\u{7F}n\r"]) == [.line("scan")])
        #expect(lines(["x\u{08}\u{08}\u{08}help\n"]) == [.line("help")])
        // Backspace over a two-byte letter removes both bytes.
        #expect(lines(["forget Zoë\u{7F}e\n"]) == [.line("forget Zoe")])
        // Arrow keys (ESC [ A) and other control bytes vanish.
        #expect(lines(["\u{1B}[Ahe\u{01}lp\n"]) == [.line("help")])
        #expect(lines(["\u{1B}[1;5Cscan\n"]) == [.line("scan")])
    }

    @Test func tooLong() {
        #expect(lines(["abcdefgh\n"], max: 4) == [.lineTooLong])
        #expect(lines(["abcdefgh", "ijk", "\nok\n"], max: 4) == [.lineTooLong, .line("ok")])
        #expect(lines(["abcd\n"], max: 4) == [.line("abcd")])
    }
}
