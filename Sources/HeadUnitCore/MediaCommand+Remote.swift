import AMS
import Input

extension MediaCommand {
    /// The AMS remote command a media key sends (docs/PROTOCOL.md §3).
    var remoteCommand: RemoteCommandID {
        switch self {
        case .play: return .play
        case .pause: return .pause
        case .togglePlayPause: return .togglePlayPause
        case .nextTrack: return .nextTrack
        case .previousTrack: return .previousTrack
        case .volumeUp: return .volumeUp
        case .volumeDown: return .volumeDown
        }
    }
}
