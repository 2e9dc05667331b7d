/// AMS RemoteCommandID. Values 14-255 are reserved.
public enum RemoteCommandID: UInt8, CaseIterable, Hashable, CustomStringConvertible {
    case play = 0
    case pause = 1
    case togglePlayPause = 2
    case nextTrack = 3
    case previousTrack = 4
    case volumeUp = 5
    case volumeDown = 6
    case advanceRepeatMode = 7
    case advanceShuffleMode = 8
    case skipForward = 9
    case skipBackward = 10
    case likeTrack = 11
    case dislikeTrack = 12
    case bookmarkTrack = 13

    public var description: String {
        switch self {
        case .play: return "play"
        case .pause: return "pause"
        case .togglePlayPause: return "toggle"
        case .nextTrack: return "next"
        case .previousTrack: return "previous"
        case .volumeUp: return "volume-up"
        case .volumeDown: return "volume-down"
        case .advanceRepeatMode: return "repeat"
        case .advanceShuffleMode: return "shuffle"
        case .skipForward: return "skip-forward"
        case .skipBackward: return "skip-backward"
        case .likeTrack: return "like"
        case .dislikeTrack: return "dislike"
        case .bookmarkTrack: return "bookmark"
        }
    }

    /// From the spelling of `description` (for the console).
    public init?(name: String) {
        for command in RemoteCommandID.allCases where command.description == name {
            self = command
            return
        }
        return nil
    }
}
