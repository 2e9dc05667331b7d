import AMS
import ScreenValues

/// What the screen shows that the core learned along the way, beside the
/// pairing state and the notification model: the hint for the driver,
/// what is playing, and the phone's time of day. The passkey is not here:
/// it belongs to the link whose pairing shows it (`PhoneLink.passkeyShown`).
struct ShownState {
    /// One line for the driver about something to do on the phone.
    var hint: ScreenTextKey?
    var nowPlaying: NowPlayingState?
    /// The phone's time of day, once read (kept after the link goes).
    var phoneClock: PhoneClock?
}
