/// Keeps one repeated complaint from flooding the log. Peer-controlled input
/// can repeat without end (a nearby device sending malformed advertising
/// thousands of times a second), and a log line per occurrence would cost
/// more than the input itself: on a serial console at 115200 baud it would
/// stall the firmware. The first `burst` occurrences in a window are logged;
/// the rest are only counted, and the count goes with the next line logged.
public struct LogThrottle {
    public let windowMilliseconds: Int64
    public let burst: Int
    private var windowStart: Instant?
    private var loggedInWindow = 0
    private var heldBack = 0
    /// Every occurrence, logged or not.
    public private(set) var total = 0

    public init(windowMilliseconds: Int64 = 10_000, burst: Int = 3) {
        self.windowMilliseconds = windowMilliseconds
        self.burst = max(1, burst)
    }

    /// Counts one occurrence. Returns nil when it should not be logged, or
    /// how many were held back since the last line logged.
    public mutating func occurrence(now: Instant) -> Int? {
        total += 1
        if let start = windowStart, now.millisecondsSince(start) < windowMilliseconds {
            guard loggedInWindow < burst else {
                heldBack += 1
                return nil
            }
        } else {
            windowStart = now
            loggedInWindow = 0
        }
        loggedInWindow += 1
        let skipped = heldBack
        heldBack = 0
        return skipped
    }

    /// " (N more not logged)" for a count returned by `occurrence`, or "".
    public static func suffix(_ skipped: Int) -> String {
        skipped > 0 ? " (\(skipped) more since the last such line, not logged)" : ""
    }
}
