/// What a media key asks of the phone's player. The input layer says what
/// the driver pressed; the core turns it into the phone's AMS remote command
/// (docs/PROTOCOL.md §3), so decoding keys needs nothing of AMS.
public enum MediaCommand: String, CustomStringConvertible {
    // The same words as the console's `media` command.
    case play, pause
    case togglePlayPause = "toggle"
    case nextTrack = "next"
    case previousTrack = "previous"
    case volumeUp = "volume-up"
    case volumeDown = "volume-down"

    public var description: String { rawValue }
}
