import BluetoothCore
import CLinux
import Foundation
import Testing
@testable import Drivers
import Platform

/// The console on a pseudo-terminal: what a person at a serial terminal
/// types arrives as lines, echoed; output gets CR LF line ends.
@Suite(.serialized) struct SerialConsoleTests {
    /// A pseudo-terminal pair through /dev/ptmx. Glibc's posix_openpt and
    /// ptsname are not visible to Swift here, so the two ioctls they use
    /// are called directly (TIOCSPTLCK, TIOCGPTN: asm-generic/ioctls.h).
    func openPTY() throws -> (master: Int32, path: String) {
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_NONBLOCK)
        try #require(master >= 0)
        var unlock: Int32 = 0
        try #require(nn_ioctl_ptr(master, 0x4004_5431, &unlock) == 0)
        var number: UInt32 = 0
        try #require(nn_ioctl_ptr(master, 0x8004_5430, &number) == 0)
        return (master, "/dev/pts/\(number)")
    }

    func drain(_ fd: Int32) -> [UInt8] {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { return out }
            out += buffer[0..<n]
        }
    }

    @Test func linesEchoAndLineEnds() throws {
        let (master, path) = try openPTY()
        defer { close(master) }
        let loop = try EventLoop()
        let console = try SerialConsole(device: path)
        var received: [UInt8] = []

        // The terminal sends CR for Enter; a partial line is held by the kernel.
        _ = "stat".withCString { Glibc.write(master, $0, 4) }
        loop.run([console], until: Clock.now().adding(milliseconds: 150)) {
            while let bytes = console.pollInput() { received += bytes }
            return true
        }
        #expect(received.isEmpty)
        _ = "us\r".withCString { Glibc.write(master, $0, 3) }
        loop.run([console], until: Clock.now().adding(seconds: 2)) {
            while let bytes = console.pollInput() { received += bytes }
            return received.isEmpty
        }
        #expect(String(decoding: received, as: UTF8.self) == "status\n")
        // Echoed by the kernel, Enter as CR LF.
        #expect(String(decoding: drain(master), as: UTF8.self) == "status\r\n")

        // Backspace is handled by the line discipline.
        received.removeAll()
        let edited = Array("scam\u{7F}n\r".utf8)
        _ = edited.withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
        loop.run([console], until: Clock.now().adding(seconds: 2)) {
            while let bytes = console.pollInput() { received += bytes }
            return received.isEmpty
        }
        #expect(String(decoding: received, as: UTF8.self) == "scan\n")
        _ = drain(master)

        console.say("state: Discovering...")
        console.write("a\nb\n")
        loop.run([console], until: Clock.now().adding(milliseconds: 100)) {
            while let bytes = console.pollInput() { received += bytes }
            return true
        }
        #expect(String(decoding: drain(master), as: UTF8.self) == "state: Discovering...\r\na\r\nb\r\n")

        // The terminal settings a serial console needs.
        let slave = open(path, O_RDWR | O_NOCTTY)
        defer { close(slave) }
        var tio = termios()
        #expect(tcgetattr(slave, &tio) == 0)
        #expect(cfgetospeed(&tio) == speed_t(B115200))
        #expect(tio.c_cflag & tcflag_t(CSIZE) == tcflag_t(CS8))
        #expect(tio.c_cflag & tcflag_t(PARENB) == 0)
        #expect(tio.c_lflag & tcflag_t(ICANON) != 0)
        #expect(tio.c_lflag & tcflag_t(ISIG) == 0)
        console.close()
    }

    @Test func outputNeverBlocks() throws {
        let (master, path) = try openPTY()
        defer { close(master) }
        let loop = try EventLoop()
        let console = try SerialConsole(device: path)
        // Nobody reads the terminal: the pty buffer fills, the rest queues,
        // beyond the limit output is dropped. None of it blocks.
        let start = Clock.now()
        let line = String(repeating: "x", count: 1023)
        for _ in 0..<200 { console.say(line) }
        #expect(Clock.now().millisecondsSince(start) < 1000)
        // Reading lets the queue drain, and the drop is reported.
        var seen: [UInt8] = []
        let deadline = Clock.now().adding(seconds: 5)
        while Clock.now() < deadline {
            loop.run([console], until: Clock.now().adding(milliseconds: 20)) { true }
            seen += drain(master)
            if String(decoding: seen.suffix(200), as: UTF8.self).contains("dropped]") { break }
        }
        #expect(String(decoding: seen.suffix(200), as: UTF8.self).contains("bytes of console output dropped]"))
        console.close()
    }

    @Test func unsupportedBaud() throws {
        let (master, path) = try openPTY()
        defer { close(master) }
        #expect(throws: SystemError.self) { try SerialConsole(device: path, baud: 12345) }
    }

    @Test func missingDevice() throws {
        #expect(throws: SystemError.self) { try SerialConsole(device: "/nonexistent/ttyX") }
    }

    @Test func readFilePrefix() throws {
        let path = NSTemporaryDirectory() + "prefix-\(getpid())"
        try Data(repeating: 0x41, count: 10_000).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        #expect(try ReadFile.prefix(path, limit: 5000).count == 5000)
        #expect(try ReadFile.prefix(path, limit: 20_000).count == 10_000)
        #expect(throws: SystemError.self) { try ReadFile.prefix(path + ".missing", limit: 10) }
    }
}
