import BluetoothCore
import CLinux
import Testing
@testable import Drivers
import Platform

/// The crash handler in a child process: armed for two links, the child
/// crashes, writes HCI Disconnect for each to its transport, waits for the
/// controller's Disconnection Complete events and dies of the signal.
@Suite struct CrashFarewellTests {
    @Test func aCrashEndsEveryLinkThenDiesOfTheSignal() throws {
        let (pid, fd) = try crashingChild { farewell, fd in
            farewell.update(fd: fd, links: [ConnectionHandle(0x0040), ConnectionHandle(0x0041)])
        }
        defer { close(fd) }
        // H4 command 0x0406 Disconnect, 3 bytes: handle, Remote User Terminated.
        let expected: [UInt8] = [0x01, 0x06, 0x04, 0x03, 0x40, 0x00, 0x13,
                                 0x01, 0x06, 0x04, 0x03, 0x41, 0x00, 0x13]
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while received.count < expected.count {
            let n = read(fd, &buffer, buffer.count)
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        #expect(received == expected)
        // The controller answers: Disconnection Complete for both links.
        let complete: [UInt8] = [0x04, 0x05, 0x04, 0x00, 0x40, 0x00, 0x16,
                                 0x04, 0x05, 0x04, 0x00, 0x41, 0x00, 0x16]
        _ = complete.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count) }
        #expect(diedOf(pid) == SIGSEGV)
    }

    @Test func noLinksNothingArmed() throws {
        let (pid, fd) = try crashingChild { farewell, fd in
            farewell.update(fd: fd, links: [ConnectionHandle(0x0040)])
            // The handler stays installed; with nothing armed it writes nothing.
            farewell.update(fd: fd, links: [])
        }
        defer { close(fd) }
        #expect(diedOf(pid) == SIGSEGV)
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(read(fd, &buffer, buffer.count) == 0)
    }

    /// A child that arms its farewell with `arm` on one end of a socket
    /// pair and raises SIGSEGV; its pid and the other end, which only the
    /// child shares (so a child that wrote nothing gives end of file).
    private func crashingChild(_ arm: (inout CrashFarewell, Int32) -> Void) throws -> (pid_t, Int32) {
        var fds: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        let pid = fork()
        if pid == 0 {
            var farewell = CrashFarewell()
            arm(&farewell, fds[1])
            raise(SIGSEGV)
            _exit(0)  // not reached: the handler dies of the signal
        }
        close(fds[1])
        if pid < 0 { close(fds[0]) }
        try #require(pid > 0)
        return (pid, fds[0])
    }

    private func diedOf(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        guard waitpid(pid, &status, 0) == pid else { return -1 }
        return status & 0x7F
    }
}
