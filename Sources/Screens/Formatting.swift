/// "m:ss", or "h:mm:ss" past an hour; negative and non-finite values read 0:00.
func formatDuration(_ seconds: Double) -> String {
    let total = seconds.isFinite && seconds > 0 ? Int(seconds) : 0
    let h = total / 3600, m = (total / 60) % 60, s = total % 60
    func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
    return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
}

/// Dropped counters without trailing zero categories, so [0, 2] and [0, 2, 0] compare equal.
func normalizedCounts(_ counts: [Int]) -> [Int] {
    var c = counts
    while let l = c.last, l <= 0 { c.removeLast() }
    return c
}
