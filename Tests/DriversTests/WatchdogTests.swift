import CLinux
import Testing
@testable import Drivers
import Platform

/// The watchdog's error paths on the build machine, which has no watchdog
/// device (the qemu boot test uses a real one: image/boot-test).
@Suite struct WatchdogTests {
    @Test func missingDeviceIsReportedWithItsPath() {
        #expect {
            _ = try Watchdog(device: "/nonexistent/watchdog0")
        } throws: { error in
            guard let e = error as? SystemError else { return false }
            return e.code == ENOENT && e.description.hasPrefix("open /nonexistent/watchdog0:")
        }
    }

    /// A file that is not a watchdog fails its first keep-alive, and the
    /// descriptor is not left open. The file is this test's own, so tests
    /// opening descriptors in parallel cannot disturb the check.
    @Test func otherDevicesAreRefused() throws {
        let path = "/tmp/headunit-not-a-watchdog-\(getpid())"
        let fd = creat(path, 0o600)
        try #require(fd >= 0)
        close(fd)
        defer { unlink(path) }
        #expect {
            _ = try Watchdog(device: path)
        } throws: { error in
            (error as? SystemError)?.code == ENOTTY
        }
        #expect(descriptorsOpen(on: path) == 0)
    }

    @Test func requestNumbersAreTheKernels() {
        // linux/watchdog.h: _IOR('W', 5, int), _IOWR('W', 6, int), _IOR('W', 7, int).
        #expect(nn_wdioc_keepalive() == 0x8004_5705)
        #expect(nn_wdioc_settimeout() == 0xC004_5706)
        #expect(nn_wdioc_gettimeout() == 0x8004_5707)
    }

    /// How many of this process's descriptors are open on `path`.
    private func descriptorsOpen(on path: String) -> Int {
        (0..<1024).filter { fd in
            var target = [CChar](repeating: 0, count: 4096)
            let n = readlink("/proc/self/fd/\(fd)", &target, target.count - 1)
            return n > 0 && String(cString: target) == path
        }.count
    }
}
