import Foundation
import Testing

/// `--watchdog` on a machine without that device: the firmware says so and
/// keeps running, and `status` tells. The supervisor in the image passes
/// `--watchdog` only when `headunit help` lists it.
@Suite(.serialized) struct WatchdogIntegrationTests {
    @Test func helpListsTheOption() throws {
        let run = try HeadUnitRun.run(["help"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("--watchdog /dev/watchdogN"))
    }

    @Test func aMissingDeviceIsLoggedAndTheHeadUnitRunsOn() throws {
        let unit = try RunningHeadUnit(hci: "tcp:127.0.0.1:1", extra: ["--watchdog", "/nonexistent/watchdog0"], name: "watchdog")
        defer { unit.stop() }
        #expect(unit.stderr.next(timeout: 10) {
            $0.contains("error watchdog: open /nonexistent/watchdog0: No such file or directory; running without the watchdog")
        } != nil)
        unit.type("status")
        #expect(unit.console.next(timeout: 10) {
            $0 == "watchdog: not in use (open /nonexistent/watchdog0: No such file or directory)"
        } != nil)
        #expect(unit.process.isRunning)
    }

    @Test func withoutTheOptionStatusSaysNone() throws {
        let unit = try RunningHeadUnit(hci: "tcp:127.0.0.1:1", name: "no-watchdog")
        defer { unit.stop() }
        unit.type("status")
        #expect(unit.console.next(timeout: 10) { $0 == "watchdog: none" } != nil)
    }

    @Test func aTimeoutOfZeroIsAUsageError() throws {
        let run = try HeadUnitRun.run(["run", "--hci", "tcp:127.0.0.1:1", "--watchdog", "/dev/watchdog0", "--watchdog-timeout", "0"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--watchdog-timeout wants a number of seconds above 0"))
    }
}
