import BluetoothCore

/// The phone's local time, read from its Current Time Service after
/// bonding: a Raspberry Pi has no battery clock, so the status bar shows the
/// phone's time, carried forward on the monotonic clock between reads.
public struct PhoneClock {
    static let service = BluetoothUUID(0x1805)
    static let currentTime = BluetoothUUID(0x2A2B)

    /// Seconds since local midnight when the value was read, and when.
    private(set) var secondsOfDay: Int64
    private(set) var readAt: Instant

    /// Decodes Current Time (Exact Time 256 + Adjust Reason, 10 bytes);
    /// nil for anything that is not a plausible time of day.
    public init?(currentTime bytes: [UInt8], at now: Instant) {
        var r = ByteReader(bytes)
        guard let year = r.u16(), let month = r.u8(), let day = r.u8(), let hours = r.u8(),
              let minutes = r.u8(), let seconds = r.u8(), r.skip(3),
              (1582...9999).contains(year) || year == 0, month <= 12, day <= 31,
              hours < 24, minutes < 60, seconds < 60 else { return nil }
        secondsOfDay = Int64(hours) * 3600 + Int64(minutes) * 60 + Int64(seconds)
        readAt = now
    }

    /// "8:15" at `now`.
    public func text(at now: Instant) -> String {
        let t = minutesSinceMidnight(at: now)
        let minutes = t % 60
        return "\(t / 60):" + (minutes < 10 ? "0\(minutes)" : "\(minutes)")
    }

    /// The phone's time of day at `now`, in minutes.
    public func minutesSinceMidnight(at now: Instant) -> Int {
        let elapsed = max(0, now.millisecondsSince(readAt)) / 1000
        return Int((secondsOfDay + elapsed) % 86_400 / 60)
    }

    /// Milliseconds until the minute shown changes.
    public func millisecondsToNextMinute(at now: Instant) -> Int64 {
        let elapsedMs = max(0, now.millisecondsSince(readAt))
        let ms = (secondsOfDay * 1000 + elapsedMs) % 60_000
        return 60_000 - ms
    }
}
