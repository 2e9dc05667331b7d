import AMS
import ANCS
import BluetoothCore
import CLinux
import Notifications
import Platform
import Screens

/// What the driver sees: the screen model composed from the pairing state,
/// the passkey, the current Maps instruction and what is playing.
extension HeadUnit {
    func updateScreen() {
        // Without a display (`--display none`) there is nothing to compose
        // or to wake up for.
        guard screen.isDrawing else { return }
        let now = Clock.now()
        screen.model = composeScreenModel(now: now)
        screen.refresh()
        // Wake for the next visible change of time: the progress bar's next
        // second while music plays, else the clock's next minute.
        var wait = phoneClock?.millisecondsToNextMinute(at: now) ?? 60_000 - (Clock.unixMicroseconds() / 1000) % 60_000
        if nowPlaying?.playback?.state == .playing {
            let elapsed = nowPlaying?.elapsedMilliseconds(at: now) ?? 0
            wait = min(wait, 1000 - elapsed % 1000)
        }
        loop.reschedule(&screenTimer, at: now.adding(milliseconds: max(wait, 20))) { [unowned(unsafe) self] in
            self.screenTimer = nil
            self.updateScreen()
        }
    }

    func composeScreenModel(now: Instant) -> ScreenModel {
        let locale = configuration.screenLocale
        let minutes = phoneClock?.minutesSinceMidnight(at: now) ?? HeadUnit.systemMinutes()
        var model = ScreenModel(pairing: pairing.state, clock: minutes.map { locale.clockText(minutesSinceMidnight: $0) } ?? "",
                                dropped: notifications.droppedByCategoryIndex, passkey: passkeyShown, hint: hint,
                                actions: ScreenModel.defaultActions(for: pairing.state), locale: locale)
        if let nav = notifications.navigation {
            let app = nav.notification.appName ?? nav.notification.app?.description ?? ""
            model.navigation = NavigationInstruction(title: nav.title ?? "", message: nav.message ?? "", app: app)
        }
        if let playing = nowPlaying, playing.title != nil || playing.artist != nil {
            model.nowPlaying = NowPlaying(title: playing.title ?? "", artist: playing.artist ?? "", album: playing.album ?? "",
                                          elapsed: Double(playing.elapsedMilliseconds(at: now) ?? 0) / 1000,
                                          duration: Double(playing.durationMilliseconds ?? 0) / 1000,
                                          playing: playing.playback?.state == .playing)
        } else if let music = notifications.music.last {
            model.nowPlaying = NowPlaying(title: music.title ?? "", artist: music.message ?? "", album: "",
                                          elapsed: 0, duration: 0, playing: true)
        }
        return model
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
