import BluetoothCore
import CLinux
import HeadUnitCore
import Platform
import Screens
import ScreenValues

/// What the driver sees: the core's screen model drawn, and redrawn when
/// time alone changes it (the clock, the progress bar).
extension HeadUnit {
    func updateScreen(now: Instant) {
        // Without a display (`--display none`) there is nothing to compose
        // or to wake up for.
        guard screen.isDrawing else { return }
        let wall = waiting.unixMicroseconds()
        screen.show(core.screenModel(now: now, systemMinutes: HeadUnit.systemMinutes(unixMicroseconds: wall)), now: now)
        let wait = core.millisecondsToNextVisibleChange(now: now, systemMillisecondsToNextMinute: 60_000 - (wall / 1000) % 60_000)
        screenAt = now.adding(milliseconds: max(wait, 20))
    }

    /// "21:17" in the system's local time (until the phone tells the time).
    static func clockText(unixMicroseconds: Int64) -> String {
        systemMinutes(unixMicroseconds: unixMicroseconds).map { ScreenLocale().clockText(minutesSinceMidnight: $0) } ?? ""
    }

    /// The system's local time of day in minutes, nil if unknown.
    static func systemMinutes(unixMicroseconds: Int64) -> Int? {
        var t = time_t(unixMicroseconds / 1_000_000)
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return nil }
        return Int(parts.tm_hour) * 60 + Int(parts.tm_min)
    }
}
