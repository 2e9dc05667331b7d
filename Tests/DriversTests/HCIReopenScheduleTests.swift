import BluetoothCore
import Testing
@testable import Drivers

/// When the driver tries a controller again: quickly while the kernel is
/// still bringing it up, with a doubling back-off when it failed.
@Suite struct HCIReopenScheduleTests {
    let start = Instant(milliseconds: 10_000)

    @Test func failedTransportBacksOffDoublingToFiveSeconds() {
        var schedule = HCIReopenSchedule()
        var now = start
        var delays: [Int64] = []
        for _ in 0..<7 {
            let at = schedule.next(after: now, stillComing: false)
            delays.append(at.millisecondsSince(now))
            now = at
        }
        #expect(delays == [250, 500, 1000, 2000, 4000, 5000, 5000])
    }

    @Test func controllerStillComingIsTriedEvery100msForFifteenSeconds() {
        var schedule = HCIReopenSchedule()
        var now = start
        var tries = 0
        while true {
            let at = schedule.next(after: now, stillComing: true)
            let delay = at.millisecondsSince(now)
            now = at
            if delay != 100 {
                // Past the window: the ordinary back-off from its start.
                #expect(delay == 250)
                break
            }
            tries += 1
            #expect(tries <= 150)
        }
        #expect(tries == 150)
        #expect(now.millisecondsSince(start) == 15_000 + 250)
        // And on from there as a failed transport.
        #expect(schedule.next(after: now, stillComing: true).millisecondsSince(now) == 500)
    }

    @Test func openingStartsBothOver() {
        var schedule = HCIReopenSchedule()
        _ = schedule.next(after: start, stillComing: false)
        _ = schedule.next(after: start, stillComing: false)
        let late = start.adding(seconds: 20)
        _ = schedule.next(after: late, stillComing: true)
        _ = schedule.next(after: late.adding(seconds: 16), stillComing: true)
        schedule.opened()
        let later = start.adding(seconds: 60)
        #expect(schedule.next(after: later, stillComing: false).millisecondsSince(later) == 250)
        schedule.opened()
        // A new window: the controller went away and is being set up again.
        #expect(schedule.next(after: later, stillComing: true).millisecondsSince(later) == 100)
        let end = later.adding(milliseconds: HCIReopenSchedule.setupWaitMilliseconds - 1)
        #expect(schedule.next(after: end, stillComing: true).millisecondsSince(end) == 100)
    }
}
