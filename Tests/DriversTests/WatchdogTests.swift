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
    /// descriptor is not left open.
    @Test func otherDevicesAreRefused() {
        let before = openDescriptors()
        #expect {
            _ = try Watchdog(device: "/dev/null")
        } throws: { error in
            (error as? SystemError)?.code == ENOTTY
        }
        #expect(openDescriptors() == before)
    }

    @Test func requestNumbersAreTheKernels() {
        // linux/watchdog.h: _IOR('W', 5, int), _IOWR('W', 6, int), _IOR('W', 7, int).
        #expect(nn_wdioc_keepalive() == 0x8004_5705)
        #expect(nn_wdioc_settimeout() == 0xC004_5706)
        #expect(nn_wdioc_gettimeout() == 0x8004_5707)
    }

    private func openDescriptors() -> Int {
        (0..<1024).filter { nn_fcntl_int($0, F_GETFD, 0) >= 0 }.count
    }
}
