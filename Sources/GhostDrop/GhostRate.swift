import BluetoothCore

/// A transfer's rate from the core's time only (sans-I/O): the bytes that
/// came since the last point over the milliseconds between them, smoothed
/// exponentially with the time constant `timeConstant` (T):
/// rate' = (rate * T + bytes * 1000) / (T + dt), which is
/// rate + (sample - rate) * dt / (T + dt): an interval weighs by its length,
/// so the result does not depend on how often it is measured. A change of
/// link speed shows within a few seconds while the jitter of single
/// 250 ms intervals (connection events, credits, retransmissions) averages
/// out. The first point is where counting starts: the bytes held then came
/// before any time was measured.
public struct GhostRate {
    /// Milliseconds.
    public static let timeConstant: Int64 = 2000

    private var last: (at: Instant, bytes: Int64)?
    /// Bytes per second; nil until a first interval was measured.
    public private(set) var bytesPerSecond: Int64?

    public init() {}

    /// `bytes` held in all at `now`.
    public mutating func measure(bytes: Int64, now: Instant) {
        guard let last else {
            self.last = (now, bytes)
            return
        }
        let dt = now.millisecondsSince(last.at)
        guard dt > 0 else { return }
        let came = bytes - last.bytes
        if let rate = bytesPerSecond {
            bytesPerSecond = (rate * GhostRate.timeConstant + came * 1000) / (GhostRate.timeConstant + dt)
        } else {
            bytesPerSecond = came * 1000 / dt
        }
        self.last = (now, bytes)
    }

    /// Whole seconds until `remaining` bytes are here at this rate, rounded
    /// up; nil without a rate.
    public func secondsLeft(_ remaining: Int64) -> Int64? {
        guard let rate = bytesPerSecond, rate > 0 else { return nil }
        return (max(remaining, 0) + rate - 1) / rate
    }
}
