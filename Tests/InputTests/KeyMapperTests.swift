import Testing
@testable import Input

@Suite struct KeyMapperTests {
    @Test func mediaKeysOnPress() {
        var s = EventStream()
        for k in [KeyCode.playPause, .nextSong, .previousSong, .volumeUp, .volumeDown] {
            s.key(k, KeyValue.press)
            s.key(k, KeyValue.release)
        }
        #expect(run(mediaKeyboard, s) == [.media(.togglePlayPause), .media(.nextTrack), .media(.previousTrack),
                                          .media(.volumeUp), .media(.volumeDown)])
    }

    @Test func repeatOnlyForVolume() {
        var s = EventStream()
        s.key(.nextSong, KeyValue.press)
        s.key(.nextSong, KeyValue.autorepeat)
        s.key(.nextSong, KeyValue.autorepeat)
        s.key(.nextSong, KeyValue.release)
        s.key(.volumeDown, KeyValue.press)
        s.key(.volumeDown, KeyValue.autorepeat)
        s.key(.volumeDown, KeyValue.autorepeat)
        s.key(.volumeDown, KeyValue.release)
        s.key(.enter, KeyValue.press)
        s.key(.enter, KeyValue.autorepeat)
        #expect(run(mediaKeyboard, s) == [.media(.nextTrack), .media(.volumeDown), .media(.volumeDown), .media(.volumeDown),
                                          .confirm])
    }

    @Test func confirmKeyIsConfigurable() {
        var s = EventStream()
        s.key(.enter, KeyValue.press)
        s.key(.ok, KeyValue.press)
        #expect(run(mediaKeyboard, s) == [.confirm, .key(.ok)])
        #expect(run(mediaKeyboard, s, settings: InputSettings(confirmKey: .ok)) == [.key(.enter), .confirm])
    }

    @Test func confirmTakesPrecedenceOverAMediaMeaning() {
        var s = EventStream()
        s.key(.playPause, KeyValue.press)
        #expect(run(mediaKeyboard, s, settings: InputSettings(confirmKey: .playPause)) == [.confirm])
    }

    @Test func touchButtonsAreNotKeys() {
        var s = EventStream()
        s.stDown(10, 10)
        s.add(.key, KeyCode.buttonToolFinger.rawValue, 1)
        s.sync()
        s.stUp()
        #expect(run(stPanel, s) == [.tap(TouchPoint(x: 2, y: 1))])
    }

    @Test func playAndPauseKeys() {
        var s = EventStream()
        s.key(.playCD, 1)
        s.key(.pauseCD, 1)
        #expect(run(mediaKeyboard, s) == [.media(.play), .media(.pause)])
    }

    @Test func keyNames() {
        #expect(KeyCode(name: "KEY_ENTER") == .enter)
        #expect(KeyCode(name: "key_playpause") == .playPause)
        #expect(KeyCode(name: "ENTER") == .enter)
        #expect(KeyCode(name: "KEY_A") == KeyCode(30))
        #expect(KeyCode(name: "KEY_M") == KeyCode(50))
        #expect(KeyCode(name: "KEY_0") == KeyCode(11))
        #expect(KeyCode(name: "KEY_F10") == KeyCode(68))
        #expect(KeyCode(name: "BTN_LEFT") == .buttonLeft)
        #expect(KeyCode(name: "28") == .enter)
        #expect(KeyCode(name: "0x160") == .ok)
        #expect(KeyCode(name: "KEY_0x1a2") == KeyCode(0x1A2))
        #expect(KeyCode(name: "KEY_NOSUCHKEY") == nil)
        #expect(KeyCode(name: "") == nil)
        #expect(KeyCode(name: "99999") == nil)
        #expect(KeyCode.enter.name == "KEY_ENTER")
        #expect(KeyCode(0x1A2).name == "KEY_0x1a2")
        #expect(KeyCode(name: KeyCode(0x1A2).name) == KeyCode(0x1A2))
    }
}
