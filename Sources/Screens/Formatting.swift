/// Whole seconds of a time; negative and non-finite values read 0.
func wholeSeconds(_ seconds: Double) -> Int {
    seconds.isFinite && seconds > 0 ? Int(seconds) : 0
}

/// "m:ss", or "h:mm:ss" past an hour, of whole seconds.
func formatDuration(seconds total: Int) -> String {
    let h = total / 3600, m = (total / 60) % 60, s = total % 60
    func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
    return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
}
