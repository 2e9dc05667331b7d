import BluetoothCore
import Testing

@Suite struct LogThrottleTests {
    @Test func logsABurstPerWindowAndCountsTheRest() {
        var throttle = LogThrottle(windowMilliseconds: 1000, burst: 2)
        var logged: [Int] = []
        // 3000 occurrences a second for two seconds.
        for i in 0..<6000 {
            if let skipped = throttle.occurrence(now: Instant(milliseconds: Int64(i / 3))) { logged.append(skipped) }
        }
        #expect(logged == [0, 0, 2998, 0])
        #expect(throttle.total == 6000)
        // Quiet for a while: the next one is logged with what was held back.
        #expect(throttle.occurrence(now: Instant(milliseconds: 10_000)) == 2998)
        #expect(throttle.occurrence(now: Instant(milliseconds: 10_001)) == 0)
    }

    @Test func suffixSaysHowManyWereHeldBack() {
        #expect(LogThrottle.suffix(0) == "")
        #expect(LogThrottle.suffix(5) == " (5 more since the last such line, not logged)")
    }
}
