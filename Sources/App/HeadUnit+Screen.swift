import BluetoothCore
import CLinux
import HeadUnitCore
import Platform
import Screens
import ScreenValues

/// What the driver sees: the core's screen model drawn, and redrawn when
/// time alone changes it (the clock, the progress bar).
extension HeadUnit {
    func updateScreen() {
        // Without a display (`--display none`) there is nothing to compose
        // or to wake up for.
        guard screen.isDrawing else { return }
        let now = Clock.now()
        screen.model = core.screenModel(now: now, systemMinutes: HeadUnit.systemMinutes())
        screen.refresh()
        let wait = core.millisecondsToNextVisibleChange(now: now,
                                                        systemMillisecondsToNextMinute: 60_000 - (Clock.unixMicroseconds() / 1000) % 60_000)
        loop.reschedule(&screenTimer, at: now.adding(milliseconds: max(wait, 20))) { [unowned(unsafe) self] in
            self.screenTimer = nil
            self.updateScreen()
        }
    }

    /// "21:17" in the system's local time (until the phone tells the time).
    static func clockText() -> String {
        systemMinutes().map { ScreenLocale().clockText(minutesSinceMidnight: $0) } ?? ""
    }

    /// The system's local time of day in minutes, nil if unknown.
    static func systemMinutes() -> Int? {
        var t = time_t(Clock.unixMicroseconds() / 1_000_000)
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return nil }
        return Int(parts.tm_hour) * 60 + Int(parts.tm_min)
    }
}
