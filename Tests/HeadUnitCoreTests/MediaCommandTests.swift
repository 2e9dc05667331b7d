import AMS
@testable import HeadUnitCore
import Input
import Testing

/// A media key sends the AMS remote command of the same name: the one the
/// console's `media` command sends for the same word (docs/PROTOCOL.md §3).
@Suite struct MediaCommandTests {
    @Test(arguments: [(MediaCommand.play, RemoteCommandID.play), (.pause, .pause), (.togglePlayPause, .togglePlayPause),
                      (.nextTrack, .nextTrack), (.previousTrack, .previousTrack), (.volumeUp, .volumeUp), (.volumeDown, .volumeDown)])
    func mapsToTheRemoteCommand(_ key: MediaCommand, _ remote: RemoteCommandID) {
        #expect(key.remoteCommand == remote)
        #expect(key.description == remote.description)
    }
}
