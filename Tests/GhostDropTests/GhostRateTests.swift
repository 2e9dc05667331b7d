import BluetoothCore
import GhostDrop
import Testing

/// A transfer's rate in virtual time (`GhostRate`).
@Suite struct GhostRateTests {
    /// Measures `bytesPerStep` arriving every `step` ms, `steps` times, from `start`.
    static func feed(_ rate: inout GhostRate, from start: (at: Int64, bytes: Int64), step: Int64, bytesPerStep: Int64,
                     steps: Int) -> (at: Int64, bytes: Int64) {
        var at = start.at, bytes = start.bytes
        for _ in 0..<steps {
            at += step
            bytes += bytesPerStep
            rate.measure(bytes: bytes, now: Instant(milliseconds: at))
        }
        return (at, bytes)
    }

    @Test func noRateBeforeAFirstIntervalAndNoneFromAnInstant() {
        var rate = GhostRate()
        #expect(rate.bytesPerSecond == nil && rate.secondsLeft(1000) == nil)
        // The first point's bytes came before any time was measured.
        rate.measure(bytes: 50_000, now: Instant(milliseconds: 1000))
        #expect(rate.bytesPerSecond == nil)
        rate.measure(bytes: 60_000, now: Instant(milliseconds: 1000))
        #expect(rate.bytesPerSecond == nil)
        rate.measure(bytes: 62_000, now: Instant(milliseconds: 1250))
        #expect(rate.bytesPerSecond == 48_000)
    }

    @Test func aSteadyLinkGivesItsRateAndTheSecondsLeftRoundedUp() {
        var rate = GhostRate()
        rate.measure(bytes: 0, now: .zero)
        _ = Self.feed(&rate, from: (0, 0), step: 250, bytesPerStep: 9_000, steps: 40)
        #expect(rate.bytesPerSecond == 36_000)
        #expect(rate.secondsLeft(36_000) == 1)
        #expect(rate.secondsLeft(36_001) == 2)
        #expect(rate.secondsLeft(0) == 0)
    }

    /// From 36 kB/s to 9 kB/s: the rate falls every interval, never below
    /// the new rate; after one time constant (2 s) about a third of the
    /// change is left (e^-1, here in steps of 250 ms); after 10 s less
    /// than 1% of it.
    @Test func aChangeOfSpeedShowsWithinSecondsSmoothly() {
        var rate = GhostRate()
        rate.measure(bytes: 0, now: .zero)
        var point = Self.feed(&rate, from: (0, 0), step: 250, bytesPerStep: 9_000, steps: 20)
        #expect(rate.bytesPerSecond == 36_000)
        var last: Int64 = 36_000
        for i in 1...40 {
            point = Self.feed(&rate, from: point, step: 250, bytesPerStep: 2_250, steps: 1)
            let now = rate.bytesPerSecond ?? 0
            #expect(now < last && now >= 9_000, "step \(i): \(now)")
            last = now
            if i == 8 {
                let left = Double(now - 9_000) / 27_000
                #expect(left > 0.30 && left < 0.42, "after 2 s: \(now)")
            }
        }
        #expect(last - 9_000 < 270, "after 10 s: \(last)")
    }

    /// An interval weighs by its length, not by how often the rate is
    /// measured: a 1 s gap after a fast stretch pulls the rate down as far
    /// as four intervals of 250 ms at the same slow speed would.
    @Test func anIntervalWeighsByItsLength() {
        var once = GhostRate(), often = GhostRate()
        once.measure(bytes: 0, now: .zero)
        often.measure(bytes: 0, now: .zero)
        let start = Self.feed(&once, from: (0, 0), step: 250, bytesPerStep: 9_000, steps: 8)
        _ = Self.feed(&often, from: (0, 0), step: 250, bytesPerStep: 9_000, steps: 8)
        _ = Self.feed(&once, from: start, step: 1000, bytesPerStep: 1_000, steps: 1)
        _ = Self.feed(&often, from: start, step: 250, bytesPerStep: 250, steps: 4)
        let a = once.bytesPerSecond ?? 0, b = often.bytesPerSecond ?? 0
        #expect(a < 36_000 && b < 36_000)
        // Within 12% of the change of each other (the steps compound a little differently).
        #expect(abs(a - b) < 35_000 / 8, "\(a) vs \(b)")
    }
}
