import BluetoothCore
import Testing
@testable import AMS

/// AMS values as the phone sends them.
@Suite struct AMSValueTests {
    @Test func entityUpdateParsing() throws {
        // Track title "Hey Jude", not truncated.
        let update = try EntityUpdate(parsing: [0x02, 0x02, 0x00] + Array("Hey Jude".utf8))
        #expect(update.attribute == .track(.title))
        #expect(update.flags == [])
        #expect(update.text == "Hey Jude")
        let truncated = try EntityUpdate(parsing: [0x00, 0x00, 0x01] + Array("Spot".utf8))
        #expect(truncated.attribute == .player(.name))
        #expect(truncated.flags.contains(.truncated))
        // An empty value is valid (no track).
        #expect(try EntityUpdate(parsing: [0x02, 0x00, 0x00]).value == [])
    }

    @Test func malformedEntityUpdates() {
        #expect(throws: EntityUpdate.ParseError.tooShort(2)) { try EntityUpdate(parsing: [0x02, 0x02]) }
        #expect(throws: EntityUpdate.ParseError.reserved(entity: 3, attribute: 0)) { try EntityUpdate(parsing: [3, 0, 0]) }
        #expect(throws: EntityUpdate.ParseError.reserved(entity: 0, attribute: 3)) { try EntityUpdate(parsing: [0, 3, 0]) }
        #expect(throws: EntityUpdate.ParseError.reserved(entity: 2, attribute: 4)) { try EntityUpdate(parsing: [2, 4, 0]) }
    }

    @Test func playbackInfo() {
        #expect(PlaybackInfo("1,1.0,37.25") == PlaybackInfo(state: .playing, rateThousandths: 1000, elapsedMilliseconds: 37_250))
        #expect(PlaybackInfo("0,0.0,200.123456") == PlaybackInfo(state: .paused, rateThousandths: 0, elapsedMilliseconds: 200_123))
        #expect(PlaybackInfo("2,-2.0,10") == PlaybackInfo(state: .rewinding, rateThousandths: -2000, elapsedMilliseconds: 10_000))
        #expect(PlaybackInfo("3,2,0.0005")?.elapsedMilliseconds == 1) // rounded
        #expect(PlaybackInfo("") == nil)
        #expect(PlaybackInfo("1,1.0") == nil)
        #expect(PlaybackInfo("4,1.0,3") == nil)
        #expect(PlaybackInfo("1,fast,3") == nil)
        #expect(PlaybackInfo("1,1.0,3,4") == nil)
        #expect(PlaybackInfo("1,1.0,") == nil)
    }

    @Test func decimals() {
        #expect(DecimalText.thousandths("0.5") == 500)
        #expect(DecimalText.thousandths("1") == 1000)
        #expect(DecimalText.thousandths(".25") == 250)
        #expect(DecimalText.thousandths("213.4709") == 213_471)
        #expect(DecimalText.thousandths("-0.001") == -1)
        #expect(DecimalText.thousandths("1.2.3") == nil)
        #expect(DecimalText.thousandths("nan") == nil)
        #expect(DecimalText.thousandths("-") == nil)
        #expect(DecimalText.thousandths("99999999999999999999") == nil)
    }

    @Test func elapsedTimeIsExtrapolatedFromRateAndArrival() {
        var np = NowPlayingState()
        let t0 = Instant(milliseconds: 50_000)
        #expect(np.elapsedMilliseconds(at: t0) == nil)
        np.playback = PlaybackInfo(state: .playing, rateThousandths: 1000, elapsedMilliseconds: 37_250)
        np.playbackReceivedAt = t0
        #expect(np.elapsedMilliseconds(at: t0) == 37_250)
        #expect(np.elapsedMilliseconds(at: t0.adding(milliseconds: 2_500)) == 39_750)
        // Fast-forward at 2x, rewind at -2x (not below zero).
        np.playback = PlaybackInfo(state: .fastForwarding, rateThousandths: 2000, elapsedMilliseconds: 10_000)
        #expect(np.elapsedMilliseconds(at: t0.adding(seconds: 3)) == 16_000)
        np.playback = PlaybackInfo(state: .rewinding, rateThousandths: -2000, elapsedMilliseconds: 5_000)
        #expect(np.elapsedMilliseconds(at: t0.adding(seconds: 2)) == 1_000)
        #expect(np.elapsedMilliseconds(at: t0.adding(seconds: 10)) == 0)
        // Paused: time stands still.
        np.playback = PlaybackInfo(state: .paused, rateThousandths: 0, elapsedMilliseconds: 90_000)
        #expect(np.elapsedMilliseconds(at: t0.adding(seconds: 60)) == 90_000)
        // Never past the end of the track.
        np.playback = PlaybackInfo(state: .playing, rateThousandths: 1000, elapsedMilliseconds: 200_000)
        np.durationMilliseconds = 201_000
        #expect(np.elapsedMilliseconds(at: t0.adding(seconds: 5)) == 201_000)
    }

    /// Found by fuzzing (Fuzz/corpus/ams/crash-absurd-playback-rate): a
    /// huge PlaybackRate times the time since it arrived overflowed and trapped.
    @Test func absurdPlaybackRateSaturates() {
        var np = NowPlayingState()
        let t0 = Instant(milliseconds: 1_000)
        np.playbackReceivedAt = t0
        np.playback = PlaybackInfo("3,64000000000.0,0")
        #expect(np.elapsedMilliseconds(at: t0.adding(seconds: 10_000)) == Int64.max)
        np.durationMilliseconds = 200_000
        #expect(np.elapsedMilliseconds(at: t0.adding(seconds: 10_000)) == 200_000)
        np.playback = PlaybackInfo("2,-64000000000.0,5")
        #expect(np.elapsedMilliseconds(at: t0.adding(seconds: 10_000)) == 0)
    }

    @Test func remoteCommandNames() {
        #expect(RemoteCommandID(name: "next") == .nextTrack)
        #expect(RemoteCommandID(name: "volume-down") == .volumeDown)
        #expect(RemoteCommandID(name: "eject") == nil)
    }
}

/// The AMS client driven from its owner's side.
@Suite struct AMSClientTests {
    let handle = ConnectionHandle(0x41)
    let t0 = Instant(milliseconds: 100_000)

    func drain(_ c: AMSClient) -> [AMSAction] {
        var out: [AMSAction] = []
        while let a = c.pollAction() { out.append(a) }
        return out
    }

    func update(_ attribute: EntityAttribute, _ text: String, truncated: Bool = false) -> [UInt8] {
        EntityUpdate(attribute: attribute, flags: truncated ? .truncated : [], value: Array(text.utf8)).bytes
    }

    /// Discovery, both subscriptions, the three registrations.
    func ready(coalesce: Int64 = 0) -> AMSClient {
        var configuration = AMSConfiguration()
        configuration.eventCoalesceMilliseconds = coalesce
        let c = AMSClient(connection: handle, configuration: configuration)
        c.start(now: t0)
        _ = drain(c)
        c.discoveryCompleted(.found([.remoteCommand, .entityUpdate, .entityAttribute]), now: t0)
        _ = drain(c)
        c.subscribeCompleted(.remoteCommand, .done, now: t0)
        _ = drain(c)
        c.subscribeCompleted(.entityUpdate, .done, now: t0)
        for _ in 0..<3 {
            _ = drain(c)
            c.writeCompleted(.entityUpdate, .done, now: t0)
        }
        precondition(drain(c) == [.event(.ready)])
        return c
    }

    @Test func subscribesThenRegistersOneWriteAtATime() {
        let c = AMSClient(connection: handle)
        c.start(now: t0)
        #expect(drain(c) == [.discover(handle)])
        c.discoveryCompleted(.found([.remoteCommand, .entityUpdate, .entityAttribute]), now: t0)
        #expect(drain(c) == [.subscribe(handle, .remoteCommand)])
        c.subscribeCompleted(.remoteCommand, .done, now: t0)
        #expect(drain(c) == [.subscribe(handle, .entityUpdate)])
        c.subscribeCompleted(.entityUpdate, .done, now: t0)
        #expect(drain(c) == [.write(handle, .entityUpdate, [0, 0, 1, 2])]) // Player: name, playback info, volume
        c.writeCompleted(.entityUpdate, .done, now: t0)
        #expect(drain(c) == [.write(handle, .entityUpdate, [1, 0, 1, 2, 3])]) // Queue: index, count, shuffle, repeat
        // A refused registration is logged; the next one still goes.
        c.writeCompleted(.entityUpdate, .attError(0xA1), now: t0)
        #expect(drain(c) == [.write(handle, .entityUpdate, [2, 0, 1, 2, 3])]) // Track: artist, album, title, duration
        c.writeCompleted(.entityUpdate, .done, now: t0)
        #expect(drain(c) == [.event(.ready)])
        #expect(c.isReady)
    }

    @Test func absentService() {
        let c = AMSClient(connection: handle)
        c.start(now: t0)
        _ = drain(c)
        c.discoveryCompleted(.absent, now: t0)
        #expect(drain(c) == [.event(.serviceAbsent)])
        c.serviceChanged(now: t0)
        #expect(drain(c) == [.discover(handle)])
    }

    @Test func entityUpdatesBuildTheNowPlayingState() {
        let c = ready()
        c.entityUpdateReceived(update(.player(.name), "Music"), now: t0)
        c.entityUpdateReceived(update(.player(.playbackInfo), "1,1.0,12.5"), now: t0)
        c.entityUpdateReceived(update(.player(.volume), "0.75"), now: t0)
        c.entityUpdateReceived(update(.queue(.index), "3"), now: t0)
        c.entityUpdateReceived(update(.queue(.count), "12"), now: t0)
        c.entityUpdateReceived(update(.queue(.shuffleMode), "2"), now: t0)
        c.entityUpdateReceived(update(.queue(.repeatMode), "1"), now: t0)
        c.entityUpdateReceived(update(.track(.artist), "The Beatles"), now: t0)
        c.entityUpdateReceived(update(.track(.album), "Abbey Road"), now: t0)
        c.entityUpdateReceived(update(.track(.title), "Something"), now: t0)
        c.entityUpdateReceived(update(.track(.duration), "182.933"), now: t0)
        #expect(drain(c).count == 11) // one change each, no coalescing configured
        let np = c.nowPlaying
        #expect(np.player == "Music")
        #expect(np.volumeThousandths == 750)
        #expect(np.queueIndex == 3 && np.queueCount == 12)
        #expect(np.shuffle == .all && np.repeatMode == .one)
        let report = np.report(at: t0.adding(milliseconds: 1_500))
        #expect(report == NowPlayingReport(player: "Music", artist: "The Beatles", album: "Abbey Road", title: "Something",
                                           state: .playing, elapsedMilliseconds: 14_000, durationMilliseconds: 182_933))
        #expect(report.state?.description == "playing")
    }

    @Test func changesAreCoalescedIntoOneEvent() {
        let c = ready(coalesce: 100)
        c.entityUpdateReceived(update(.track(.artist), "Daft Punk"), now: t0)
        c.entityUpdateReceived(update(.track(.title), "Harder"), now: t0.adding(milliseconds: 20))
        #expect(drain(c).isEmpty)
        #expect(c.nextDeadline == t0.adding(milliseconds: 100))
        c.handleTimeout(now: t0.adding(milliseconds: 100))
        guard case .event(.nowPlayingChanged(let np)) = drain(c).first else {
            Issue.record("no event")
            return
        }
        #expect(np.artist == "Daft Punk" && np.title == "Harder")
        #expect(c.nextDeadline == nil)
        // The same value again is no change.
        c.entityUpdateReceived(update(.track(.title), "Harder"), now: t0.adding(milliseconds: 200))
        #expect(c.nextDeadline == nil)
    }

    @Test func truncatedValueIsReadThroughEntityAttribute() {
        let c = ready()
        c.entityUpdateReceived(update(.track(.title), "A Very Long Title That Did No", truncated: true), now: t0)
        c.entityUpdateReceived(update(.track(.album), "Also Cut Shor", truncated: true), now: t0)
        let first = drain(c)
        #expect(first.contains(.write(handle, .entityAttribute, [2, 2])))
        #expect(!first.contains(.write(handle, .entityAttribute, [2, 1]))) // one at a time
        #expect(c.nowPlaying.title == "A Very Long Title That Did No") // the start is shown meanwhile
        c.writeCompleted(.entityAttribute, .done, now: t0)
        #expect(drain(c) == [.read(handle, .entityAttribute)])
        c.readCompleted(.entityAttribute, .value(Array("A Very Long Title That Did Not Fit In One Notification".utf8)), now: t0)
        let second = drain(c)
        #expect(second.contains(.write(handle, .entityAttribute, [2, 1])))
        #expect(c.nowPlaying.title == "A Very Long Title That Did Not Fit In One Notification")
        // The attribute is gone by now: 0xA2, no read; nothing else breaks.
        c.writeCompleted(.entityAttribute, .attError(0xA2), now: t0)
        #expect(drain(c).isEmpty)
        #expect(c.nowPlaying.album == "Also Cut Shor")
    }

    @Test func remoteCommandsOnlyWhenSupported() {
        let c = ready()
        #expect(!c.send(.nextTrack, now: t0)) // nothing listed yet
        c.remoteCommandReceived([0, 1, 2, 3, 4, 5, 6, 200], now: t0)
        #expect(drain(c) == [.event(.supportedCommandsChanged([.play, .pause, .togglePlayPause, .nextTrack,
                                                                 .previousTrack, .volumeUp, .volumeDown]))])
        #expect(c.send(.togglePlayPause, now: t0))
        #expect(c.send(.nextTrack, now: t0))
        #expect(drain(c) == [.write(handle, .remoteCommand, [2])])
        c.writeCompleted(.remoteCommand, .done, now: t0)
        #expect(drain(c) == [.write(handle, .remoteCommand, [3])])
        c.writeCompleted(.remoteCommand, .attError(0xA0), now: t0)
        #expect(drain(c) == [.event(.commandFailed(.nextTrack))])
        // The phone stops listing skipping (an ad plays).
        c.remoteCommandReceived([0, 1, 2], now: t0)
        _ = drain(c)
        #expect(!c.send(.nextTrack, now: t0))
        #expect(!c.send(.volumeUp, now: t0))
        #expect(c.send(.pause, now: t0))
        // The same list again is no event.
        c.remoteCommandReceived([2, 1, 0], now: t0)
        #expect(drain(c) == [.write(handle, .remoteCommand, [1])])
    }

    @Test func malformedUpdatesAreDropped() {
        let c = ready()
        c.entityUpdateReceived([2], now: t0)
        c.entityUpdateReceived([7, 0, 0, 0x41], now: t0)
        c.entityUpdateReceived(update(.player(.playbackInfo), "garbage"), now: t0)
        #expect(drain(c).isEmpty)
        #expect(c.nowPlaying == NowPlayingState())
    }

    @Test func disconnectionClearsTheState() {
        let c = ready()
        c.entityUpdateReceived(update(.track(.title), "Song"), now: t0)
        c.remoteCommandReceived([0, 1], now: t0)
        _ = drain(c)
        c.disconnected(now: t0)
        #expect(drain(c) == [.event(.nowPlayingChanged(NowPlayingState())), .event(.supportedCommandsChanged([]))])
        #expect(!c.send(.play, now: t0))
        // A late result of the old link is ignored.
        c.writeCompleted(.entityUpdate, .done, now: t0)
        #expect(drain(c).isEmpty)
    }
}
