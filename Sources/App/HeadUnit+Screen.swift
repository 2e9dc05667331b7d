import BluetoothCore
import CLinux
import HeadUnitCore
import Platform

/// What the driver sees: the core's screen model drawn, and redrawn when
/// time alone changes it (the clock, the progress bar).
extension HeadUnit {
    func updateScreen() {
        // Without a display (`--display none`) there is nothing to compose
        // or to wake up for.
        guard screen.isDrawing else { return }
        let now = Clock.now()
        screen.model = core.screenModel(now: now, systemClock: HeadUnit.clockText())
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
        var t = time_t(Clock.unixMicroseconds() / 1_000_000)
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return "" }
        let minutes = parts.tm_min < 10 ? "0\(parts.tm_min)" : "\(parts.tm_min)"
        return "\(parts.tm_hour):\(minutes)"
    }
}
