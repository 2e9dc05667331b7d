import AMS
import ANCS
import BluetoothCore
import Notifications
import NavigationNotifier
import ScreenValues

/// What the driver sees: the screen model composed from the pairing state,
/// the passkey, the current Maps instruction and what is playing.
extension HeadUnitCore {
    /// `systemMinutes`: the time of day the shell read (minutes since
    /// midnight, nil if unknown), shown until the phone tells the time, in
    /// the screen's language and clock format.
    public func screenModel(now: Instant, systemMinutes: Int?) -> ScreenModel {
        let locale = settings.screenLocale
        let minutes = phoneClock?.minutesSinceMidnight(at: now) ?? systemMinutes
        let (state, actions, hint) = phoneOnScreen(locale)
        var model = ScreenModel(pairing: state, clock: minutes.map { locale.clockText(minutesSinceMidnight: $0) } ?? "",
                                dropped: notifications.droppedByCategoryIndex, passkey: passkeyShown, hint: hint,
                                actions: actions, locale: locale)
        model.transferCode = ghostDrop.codeShown
        model.transfer = transferBand(at: now)
        if let nav = notifications.navigation {
            let app = nav.notification.appName ?? nav.notification.app?.description ?? ""
            model.navigation = NavigationInstruction(title: nav.title ?? "", message: nav.message ?? "", app: app,
                                                      guidance: nav.guidance)
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

    /// The phone's line, the buttons and the hint. The NavigationNotifier
    /// routine's state, unless the head unit is an accessory: then a phone
    /// paired from Settings is "connected", and while any iPhone may pair
    /// the hint says how (before the passkey appears).
    private func phoneOnScreen(_ locale: ScreenLocale) -> (PairingState, [ScreenAction], String?) {
        var state = pairing.state
        var actions = ScreenModel.defaultActions(for: state)
        var shownHint = hint.map { locale.text($0) }
        guard let accessory, !accessory.standingBy else { return (state, actions, shownHint) }
        if let phone = accessoryPhone {
            return (.connected(server: phone.deviceName ?? "iPhone"), [], shownHint)
        }
        // The passkey is for an iPhone that tapped us in Settings, not for
        // the remembered phone with the app, whose name the screen would give.
        if passkeyShown != nil && links.values.contains(where: { $0.role == .peripheral && $0.security != nil }) {
            return (.connecting(server: "iPhone"), [], shownHint)
        }
        if !settings.findsNavigationNotifierPhones {
            state = .discovering
            actions = []
        }
        if state.isConnected || passkeyShown != nil { return (state, actions, shownHint) }
        if accessory.pairingOpen {
            shownHint = shownHint ?? locale.text(.hintSettingsPairing, accessory.name)
        } else {
            actions.append(.pairPhone)
        }
        return (state, actions, shownHint)
    }

    /// When what the screen shows next changes by itself: the progress
    /// bar's next second while music plays, a transfer's outcome leaving,
    /// else the clock's next minute (`systemMillisecondsToNextMinute` until
    /// the phone tells the time).
    public func millisecondsToNextVisibleChange(now: Instant, systemMillisecondsToNextMinute: Int64) -> Int64 {
        var wait = phoneClock?.millisecondsToNextMinute(at: now) ?? systemMillisecondsToNextMinute
        if nowPlaying?.playback?.state == .playing {
            let elapsed = nowPlaying?.elapsedMilliseconds(at: now) ?? 0
            wait = min(wait, 1000 - elapsed % 1000)
        }
        if let band = millisecondsToTransferBandChange(at: now) { wait = min(wait, band) }
        return wait
    }
}
