import Guidance

/// What a touch target asks for: the idle screen's buttons, and the two
/// answers under a GhostDrop transfer's code.
public enum ScreenAction: Equatable {
    /// `Discover Server App`: start a discovery round.
    case discover
    /// `Connect to NAME`: look for the remembered server now.
    case connect
    case disconnect
    case unpair
    /// Pairing mode for a while: another iPhone may pair from its Settings.
    case pairPhone
    /// "Codes match" under a transfer's code: as the confirm key.
    case codesMatch
    /// "Cancel" under a transfer's code: the codes differ, as Escape.
    case cancelCode

    /// The buttons under a transfer's code, in the order drawn.
    public static var codeAnswers: [ScreenAction] { [.codesMatch, .cancelCode] }

    public func label(for state: PairingState) -> String {
        switch self {
        case .discover: return "Discover Server App"
        case .connect: return "Connect to \(state.server ?? "server")"
        case .disconnect: return "Disconnect"
        case .unpair: return "Unpair"
        case .pairPhone: return "Pair a new iPhone"
        case .codesMatch: return "Codes match"
        case .cancelCode: return "Cancel"
        }
    }
}

public enum ThemeMode: Equatable {
    case day
    case night
}

/// ANCS CategoryID values (docs/PROTOCOL.md §2), for the dropped-notification counters.
public enum NotificationCategory: Int, CaseIterable {
    case other = 0, incomingCall, missedCall, voicemail, social, schedule, email, news,
         healthAndFitness, businessAndFinance, location, entertainment
}

/// The navigation notification being shown.
public struct NavigationInstruction: Equatable {
    public var title: String
    public var message: String
    /// App identifier (`com.google.Maps`) or display name.
    public var app: String
    /// The text already read (the notification model reads each
    /// instruction once); nil: read when drawn.
    public var guidance: Guidance?

    public init(title: String, message: String, app: String, guidance: Guidance? = nil) {
        self.title = title; self.message = message; self.app = app; self.guidance = guidance
    }
}

/// The AMS now-playing state, with the elapsed time already advanced to
/// the moment of drawing by the caller.
public struct NowPlaying: Equatable {
    public var title: String
    public var artist: String
    public var album: String
    /// Seconds.
    public var elapsed: Double
    /// Seconds; 0 when unknown.
    public var duration: Double
    public var playing: Bool

    public init(title: String, artist: String, album: String, elapsed: Double, duration: Double, playing: Bool) {
        self.title = title; self.artist = artist; self.album = album
        self.elapsed = elapsed; self.duration = duration; self.playing = playing
    }
}

/// Everything the screen shows, as a plain value: the app builds one from
/// its state and hands it to `ScreenRenderer.render`.
public struct ScreenModel: Equatable {
    public var pairing: PairingState
    public var clock: String
    /// Dropped notifications per ANCS category, indexed by CategoryID.
    public var dropped: [Int]
    /// Six digits while pairing asks for a passkey to be typed on the phone.
    public var passkey: String?
    /// Six digits while a GhostDrop transfer waits for the driver to
    /// compare them with the phone's ("Codes match" / "Cancel").
    public var transferCode: String?
    /// A GhostDrop transfer's progress or, for a few seconds after, its
    /// outcome: a band along the bottom of the screen.
    public var transfer: TransferBand?
    /// One line of advice, e.g. "Share System Notifications is off on the iPhone".
    public var hint: String?
    public var navigation: NavigationInstruction?
    public var nowPlaying: NowPlaying?
    public var theme: ThemeMode
    /// Touch targets offered on the idle screen, in this order.
    public var actions: [ScreenAction]
    /// The language of the head unit's own words, and its units.
    public var locale: ScreenLocale

    public init(pairing: PairingState = .discover, clock: String = "", dropped: [Int] = [],
                passkey: String? = nil, hint: String? = nil, navigation: NavigationInstruction? = nil,
                nowPlaying: NowPlaying? = nil, theme: ThemeMode = .night, actions: [ScreenAction] = [],
                locale: ScreenLocale = ScreenLocale()) {
        self.pairing = pairing
        self.clock = clock
        self.dropped = dropped
        self.passkey = passkey
        self.hint = hint
        self.navigation = navigation
        self.nowPlaying = nowPlaying
        self.theme = theme
        self.actions = actions
        self.locale = locale
    }

    /// The actions docs/PROTOCOL.md §1 offers in each state.
    public static func defaultActions(for state: PairingState) -> [ScreenAction] {
        switch state {
        case .discover: return [.discover]
        case .discovering: return []
        case .connecting: return [.disconnect, .unpair]
        case .connected: return [.disconnect, .unpair]
        case .remembered: return [.connect, .unpair]
        }
    }

    public mutating func countDropped(category: Int) {
        guard category >= 0 && category < NotificationCategory.allCases.count else { return }
        while dropped.count <= category { dropped.append(0) }
        dropped[category] += 1
    }

    /// Which screen this model shows.
    public var kind: ScreenKind {
        if passkey != nil || transferCode != nil { return .pairing }
        if pairing.isConnected && (navigation != nil || nowPlaying != nil) { return .cards }
        return .idle
    }

    /// The pairing screen shows a transfer's code to compare (a pairing's
    /// passkey goes first: the phone waits for it).
    public var comparesTransferCode: Bool { passkey == nil && transferCode != nil }

    /// The buttons of the screen shown, in the order drawn: the idle
    /// screen's actions, or "Codes match" and "Cancel" under a transfer's
    /// code. Nothing else answers a tap; a pairing's passkey has none (the
    /// phone's own screen answers there), nor do the cards.
    public var buttonActions: [ScreenAction] {
        switch kind {
        case .idle: return actions
        case .pairing: return comparesTransferCode ? ScreenAction.codeAnswers : []
        case .cards: return []
        }
    }
}

public enum ScreenKind: Equatable {
    /// State, hint and the action buttons.
    case idle
    /// The passkey (or a transfer's code), huge.
    case pairing
    /// Navigation and music cards.
    case cards
}
