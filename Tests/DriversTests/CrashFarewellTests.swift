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
        var fds: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let pid = fork()
        try #require(pid >= 0)
        if pid == 0 {
            var farewell = CrashFarewell()
            farewell.update(fd: fds[1], links: [ConnectionHandle(0x0040), ConnectionHandle(0x0041)])
            raise(SIGSEGV)
            _exit(0)  // not reached: the handler dies of the signal
        }
        // Only the child holds the other end: a child that wrote nothing gives end of file, not a wait.
        close(fds[1])
        fds[1] = -1
        // H4 command 0x0406 Disconnect, 3 bytes: handle, Remote User Terminated.
        let expected: [UInt8] = [0x01, 0x06, 0x04, 0x03, 0x40, 0x00, 0x13,
                                 0x01, 0x06, 0x04, 0x03, 0x41, 0x00, 0x13]
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64)
        while received.count < expected.count {
            let n = read(fds[0], &buffer, buffer.count)
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        #expect(received == expected)
        // The controller answers: Disconnection Complete for both links.
        let complete: [UInt8] = [0x04, 0x05, 0x04, 0x00, 0x40, 0x00, 0x16,
                                 0x04, 0x05, 0x04, 0x00, 0x41, 0x00, 0x16]
        _ = complete.withUnsafeBufferPointer { write(fds[0], $0.baseAddress, $0.count) }
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        #expect(status & 0x7F == SIGSEGV)
    }

    @Test func noLinksNothingArmed() throws {
        var fds: [Int32] = [-1, -1]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let pid = fork()
        try #require(pid >= 0)
        if pid == 0 {
            var farewell = CrashFarewell()
            farewell.update(fd: fds[1], links: [ConnectionHandle(0x0040)])
            farewell.update(fd: fds[1], links: [])
            // The handler stays installed; with nothing armed it writes nothing.
            raise(SIGSEGV)
            _exit(0)
        }
        close(fds[1])
        fds[1] = -1
        var status: Int32 = 0
        #expect(waitpid(pid, &status, 0) == pid)
        #expect(status & 0x7F == SIGSEGV)
        var buffer = [UInt8](repeating: 0, count: 16)
        #expect(read(fds[0], &buffer, buffer.count) == 0)
    }
}
