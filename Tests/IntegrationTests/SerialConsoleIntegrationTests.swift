import CLinux
import Foundation
import Testing

/// The diagnostics shell on a real terminal: `headunit run --console` on the
/// slave side of a pseudo-terminal, typed at from the master side like a
/// serial console in the car.
@Suite(.serialized) struct SerialConsoleIntegrationTests {
    final class Terminal {
        let master: Int32
        let slavePath: String
        private var buffer = ""

        init() throws {
            // /dev/ptmx with TIOCSPTLCK and TIOCGPTN: what posix_openpt,
            // unlockpt and ptsname do, which Swift's Glibc does not show.
            master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_NONBLOCK)
            var unlock: Int32 = 0
            var number: UInt32 = 0
            guard master >= 0, nn_ioctl_ptr(master, 0x4004_5431, &unlock) == 0,
                  nn_ioctl_ptr(master, 0x8004_5430, &number) == 0 else {
                throw TestFailure("no pseudo-terminal")
            }
            slavePath = "/dev/pts/\(number)"
        }

        deinit { close(master) }

        func type(_ line: String) {
            let bytes = Array((line + "\r").utf8)
            _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        }

        /// Waits until the terminal shows text containing `needle`.
        func expect(_ needle: String, timeout: TimeInterval = 10) -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = chunk.withUnsafeMutableBytes { read(master, $0.baseAddress, $0.count) }
                if n > 0 { buffer += String(decoding: chunk[0..<n], as: UTF8.self) }
                if let range = buffer.range(of: needle) {
                    buffer.removeSubrange(buffer.startIndex..<range.upperBound)
                    return true
                }
                usleep(20_000)
            }
            return false
        }
    }

    @Test func everyCommandAnswersOnATerminal() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let terminal = try Terminal()
        let unit = try RunningHeadUnit(hci: phone.hciSpec, extra: ["--console", terminal.slavePath], name: "pty")
        defer { unit.stop() }
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(terminal.expect("passkey: \(passkey)"))
        #expect(phone.waitFor("passkey_requested", timeout: 30) != nil)
        try phone.command("type_passkey", ["phone": "anna", "digits": passkey])
        #expect(unit.waitFor("encrypted", timeout: 30) != nil)

        let answers: [(String, String)] = [
            ("help", "commands:"),
            ("status", "state: Connected to server:"),
            ("version", "headunit "),
            ("bonds", "bond Anna-iPhone"),
            ("notifications", "dropped: 0"),
            ("now-playing", "nothing playing"),
            ("config", "[bluetooth]"),
            ("media next", "the phone does not offer"),
            ("action 99 positive", "no notification 99"),
            ("frobnicate", "unknown command 'frobnicate'"),
            ("forget", "usage: forget"),
            ("log verbose", "usage: log"),
        ]
        for (command, answer) in answers {
            terminal.type(command)
            #expect(terminal.expect(answer), "'\(command)' did not answer '\(answer)'")
        }
        terminal.type("disconnect")
        #expect(unit.waitForState("remembered"))
        terminal.type("connect")
        #expect(unit.waitForState("connected", timeout: 30))
        terminal.type("unpair")
        #expect(unit.waitForState("discover"))
    }
}
