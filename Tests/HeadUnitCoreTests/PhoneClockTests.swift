import BluetoothCore
import Testing
@testable import HeadUnitCore

@Suite struct PhoneClockTests {
    // 2026-11-22 08:15:30, Sunday, no fractions, no adjustment.
    let sample: [UInt8] = [0xEA, 0x07, 11, 22, 8, 15, 30, 7, 0, 0]

    @Test func decodesAndRunsOnTheMonotonicClock() throws {
        let t0 = Instant(milliseconds: 5_000)
        let clock = try #require(PhoneClock(currentTime: sample, at: t0))
        #expect(clock.text(at: t0) == "8:15")
        #expect(clock.text(at: t0.adding(seconds: 29)) == "8:15")
        #expect(clock.text(at: t0.adding(seconds: 30)) == "8:16")
        #expect(clock.millisecondsToNextMinute(at: t0) == 30_000)
        #expect(clock.text(at: t0.adding(seconds: 16 * 3600)) == "0:15")
    }

    @Test func rejectsImplausibleValues() {
        #expect(PhoneClock(currentTime: Array(sample.prefix(9)), at: .zero) == nil)
        var badHour = sample
        badHour[4] = 24
        #expect(PhoneClock(currentTime: badHour, at: .zero) == nil)
        var badMonth = sample
        badMonth[2] = 13
        #expect(PhoneClock(currentTime: badMonth, at: .zero) == nil)
    }
}
