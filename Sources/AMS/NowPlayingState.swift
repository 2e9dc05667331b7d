import BluetoothCore

/// PlaybackState of PlaybackInfo.
public enum PlaybackState: UInt8, CustomStringConvertible {
    case paused = 0
    case playing = 1
    case rewinding = 2
    case fastForwarding = 3

    /// The `state` field of the `now_playing` event.
    public var description: String {
        switch self {
        case .paused: return "paused"
        case .playing: return "playing"
        case .rewinding: return "rewinding"
        case .fastForwarding: return "fast-forwarding"
        }
    }
}

/// PlayerAttributeIDPlaybackInfo: `state,rate,elapsed`, e.g. "1,1.0,37.25".
public struct PlaybackInfo: Equatable {
    public var state: PlaybackState
    /// Playback rate in thousandths (1000 = normal speed, 0 when paused,
    /// negative while rewinding).
    public var rateThousandths: Int64
    /// Elapsed time of the track when the phone sent the value.
    public var elapsedMilliseconds: Int64

    public init(state: PlaybackState, rateThousandths: Int64, elapsedMilliseconds: Int64) {
        self.state = state
        self.rateThousandths = rateThousandths
        self.elapsedMilliseconds = elapsedMilliseconds
    }

    /// Nil unless it is three comma-separated numbers with a known state.
    public init?(_ text: String) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3,
              let stateValue = UInt8(String(parts[0])), let state = PlaybackState(rawValue: stateValue),
              let rate = DecimalText.thousandths(String(parts[1])),
              let elapsed = DecimalText.thousandths(String(parts[2])) else { return nil }
        self.init(state: state, rateThousandths: rate, elapsedMilliseconds: elapsed)
    }
}

/// QueueAttributeIDShuffleMode / RepeatMode values.
public enum QueueMode: UInt8, CustomStringConvertible {
    case off = 0
    case one = 1
    case all = 2

    public var description: String {
        switch self {
        case .off: return "off"
        case .one: return "one"
        case .all: return "all"
        }
    }
}

/// What the phone is playing, as far as AMS told us. Nil fields were never
/// sent (or were empty: no player, no track).
public struct NowPlayingState: Equatable {
    /// The playing app's name ("Music", "Spotify").
    public var player: String?
    public var playback: PlaybackInfo?
    /// When `playback` arrived: the base of the elapsed-time extrapolation.
    public var playbackReceivedAt: Instant?
    /// 0...1000.
    public var volumeThousandths: Int64?
    public var queueIndex: Int?
    public var queueCount: Int?
    public var shuffle: QueueMode?
    public var repeatMode: QueueMode?
    public var artist: String?
    public var album: String?
    public var title: String?
    public var durationMilliseconds: Int64?

    public init() {}

    /// The elapsed time now, extrapolated from the last PlaybackInfo as AMS
    /// prescribes: elapsed + (now - received) × rate. Kept within the track.
    public func elapsedMilliseconds(at now: Instant) -> Int64? {
        guard let playback, let receivedAt = playbackReceivedAt else { return nil }
        var elapsed = playback.elapsedMilliseconds
        if playback.state != .paused {
            // The rate is text from the phone and may be absurd ("64000000000"):
            // saturate instead of trapping on overflow.
            let since = now.millisecondsSince(receivedAt)
            let (product, overflow) = since.multipliedReportingOverflow(by: playback.rateThousandths)
            let advance = overflow ? ((since < 0) == (playback.rateThousandths < 0) ? Int64.max : Int64.min) : product / 1000
            let (sum, sumOverflow) = elapsed.addingReportingOverflow(advance)
            elapsed = sumOverflow ? (advance < 0 ? Int64.min : Int64.max) : sum
        }
        if let duration = durationMilliseconds, duration > 0, elapsed > duration { elapsed = duration }
        return max(0, elapsed)
    }

    /// The data of the `now_playing` event at `now`.
    public func report(at now: Instant) -> NowPlayingReport {
        NowPlayingReport(player: player, artist: artist, album: album, title: title,
                         state: playback?.state, elapsedMilliseconds: elapsedMilliseconds(at: now),
                         durationMilliseconds: durationMilliseconds)
    }
}

/// The `now_playing` event of docs/PROTOCOL.md §6: player, artist, album, title,
/// state, elapsed_s, duration_s (write the times with
/// `JSONLine.field(_:milliunits:)`).
public struct NowPlayingReport: Equatable {
    public var player: String?
    public var artist: String?
    public var album: String?
    public var title: String?
    /// `state`: its `description` ("paused", "playing", "rewinding", "fast-forwarding").
    public var state: PlaybackState?
    public var elapsedMilliseconds: Int64?
    public var durationMilliseconds: Int64?

    public init(player: String?, artist: String?, album: String?, title: String?, state: PlaybackState?,
                elapsedMilliseconds: Int64?, durationMilliseconds: Int64?) {
        self.player = player
        self.artist = artist
        self.album = album
        self.title = title
        self.state = state
        self.elapsedMilliseconds = elapsedMilliseconds
        self.durationMilliseconds = durationMilliseconds
    }
}
