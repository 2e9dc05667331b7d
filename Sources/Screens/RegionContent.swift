import Graphics
import Guidance
import ScreenValues

/// What one region of the screen shows, read out of the model in one
/// place (`RegionContent.of`). A region's painter is handed this value and
/// the frame's layout, theme and locale (a change of any of those repaints
/// the whole screen), and nothing else of the model; so the renderer
/// redraws exactly the regions whose content differs between the model on
/// screen and the new one: a field a painter draws is a field the damage
/// compares, by construction, and a new field must pass through here to be
/// drawn at all. The values are the model's own (strings shared, not
/// built), so reading every region each frame costs next to nothing.
enum RegionContent: Equatable {
    /// The dot's colour and the words.
    case state(PairingState)
    /// Dropped notifications per category, trailing zeros removed.
    case counters([Int])
    case clock(String)
    /// `route` false: the grey tile of no instruction (its arrow neutral).
    case navArrow(route: Bool, maneuver: Maneuver, exit: Int?)
    case navDistance(NavDistance)
    /// The app's name; "" draws nothing.
    case navApp(String)
    case navText(NavText)
    /// nil: nothing playing.
    case musicMeta(MusicMeta?)
    /// nil: nothing playing, nothing drawn.
    case musicIcon(playing: Bool?)
    /// nil: nothing playing, nothing drawn.
    case musicProgress(MusicProgress?)
    case hint(String?)
    case idle(Idle)
    case pairing(Pairing)
    /// nil: no transfer, nothing drawn.
    case transfer(Transfer?)

    enum NavDistance: Equatable {
        /// No instruction: "No route" greyed.
        case noRoute
        /// An instruction without a distance: the maneuver's name, if it has one.
        case maneuver(Maneuver)
        /// The number big, the unit small.
        case distance(String, unit: String)
    }

    enum NavText: Equatable {
        /// No instruction: "Start a route..." greyed.
        case noRoute
        case instruction(primary: String, secondary: String)
    }

    struct MusicMeta: Equatable {
        /// "" is drawn as "Unknown title".
        var title: String
        var artist: String
        var album: String
    }

    struct MusicProgress: Equatable {
        /// Filled width of the bar, in pixels of the layout it was read for.
        var fill: Int
        /// Whole seconds, as the times show them.
        var elapsed: Int
        /// nil when the duration is unknown.
        var duration: Int?
    }

    struct Idle: Equatable {
        /// The emblem's colour, the headline, the name on Connect.
        var state: PairingState
        var hint: String?
        var actions: [ScreenAction]
    }

    struct Pairing: Equatable {
        var passkey: String
        /// A GhostDrop transfer's code to compare, not a passkey to type.
        var transfer = false
        /// Advice, drawn in the warning colour.
        var hint: String?
        /// The phone being paired, named when there is no hint.
        var server: String?
    }

    /// A GhostDrop transfer's band as drawn: the values change only when
    /// what is seen does (a whole percent, the rate's shown digits, a
    /// second of the time left), at most as often as the receiver reports
    /// (every 250 ms).
    struct Transfer: Equatable {
        var name: String
        /// "42%" while the file arrives; nil once it is over.
        var percent: String?
        /// Filled width of the bar in pixels; nil: no bar (it is over).
        var fill: Int?
        /// "36.4 kB/s · 1:05 left", or the outcome.
        var detail: String
        /// The outcome went as the driver wanted (the good colour), or not.
        var good: Bool
    }

    /// The regions a screen kind draws, in drawing order.
    static func regions(of kind: ScreenKind) -> [ScreenRegion] {
        switch kind {
        case .cards:
            return [.state, .counters, .clock, .navArrow, .navDistance, .navApp, .navText, .musicMeta, .musicIcon,
                    .musicProgress, .hint, .transfer]
        case .idle: return [.state, .counters, .clock, .idle, .transfer]
        case .pairing: return [.state, .counters, .clock, .pairing]
        }
    }

    /// What `region` shows of `model` laid out as `layout`; `summary` is the
    /// model's instruction as read (NavigationSummary), nil without one.
    static func of(_ region: ScreenRegion, _ model: ScreenModel, _ layout: ScreenLayout,
                   summary: NavigationSummary?) -> RegionContent {
        switch region {
        case .state:
            return .state(model.pairing)
        case .counters:
            var counts = model.dropped.count > NotificationCategory.allCases.count
                ? Array(model.dropped.prefix(NotificationCategory.allCases.count)) : model.dropped
            while let last = counts.last, last <= 0 { counts.removeLast() }
            return .counters(counts)
        case .clock:
            return .clock(model.clock)
        case .navArrow:
            return .navArrow(route: summary != nil, maneuver: summary?.maneuver ?? .neutral, exit: summary?.roundaboutExit)
        case .navDistance:
            guard let s = summary else { return .navDistance(.noRoute) }
            return .navDistance(s.distance.isEmpty ? .maneuver(s.maneuver) : .distance(s.distance, unit: s.unit))
        case .navApp:
            return .navApp(summary?.app ?? "")
        case .navText:
            guard let s = summary else { return .navText(.noRoute) }
            return .navText(.instruction(primary: s.primary, secondary: s.secondary))
        case .musicMeta:
            return .musicMeta(model.nowPlaying.map { MusicMeta(title: $0.title, artist: $0.artist, album: $0.album) })
        case .musicIcon:
            return .musicIcon(playing: model.nowPlaying?.playing)
        case .musicProgress:
            guard let n = model.nowPlaying else { return .musicProgress(nil) }
            let fraction: Float = (n.duration.isFinite && n.elapsed.isFinite && n.duration > 0)
                ? Float(max(0, min(1, n.elapsed / n.duration))) : 0
            return .musicProgress(MusicProgress(fill: Int(fraction * Float(layout.musicProgress.width)),
                                                elapsed: wholeSeconds(n.elapsed),
                                                duration: n.duration > 0 ? wholeSeconds(n.duration) : nil))
        case .hint:
            return .hint(model.hint)
        case .idle:
            return .idle(Idle(state: model.pairing, hint: model.hint, actions: model.actions))
        case .transfer:
            return .transfer(model.transfer.map { transfer($0, model.locale, barWidth: layout.transferBar.width) })
        case .pairing:
            // A pairing's passkey first: the phone waits for it.
            if model.passkey == nil, let code = model.transferCode {
                return .pairing(Pairing(passkey: code, transfer: true, hint: model.hint, server: nil))
            }
            return .pairing(Pairing(passkey: model.passkey ?? "", hint: model.hint, server: model.pairing.server))
        }
    }

    /// What the band shows of `band`.
    static func transfer(_ band: TransferBand, _ locale: ScreenLocale, barWidth: Int) -> Transfer {
        switch band.status {
        case let .receiving(bytes, total, rate, eta):
            let fraction = total > 0 ? max(0, min(1, Double(bytes) / Double(total))) : 0
            // Floored: 100% only once every byte is here.
            let percent = total > 0 ? Int(max(0, min(total, bytes)) * 100 / total) : 0
            var detail = rate > 0 ? locale.rateText(bytesPerSecond: rate) : ""
            if let eta {
                let left = locale.text(.transferLeft, formatDuration(seconds: Int(max(0, eta))))
                detail = detail.isEmpty ? left : detail + " · " + left
            }
            return Transfer(name: band.filename, percent: "\(percent)%", fill: Int(fraction * Double(barWidth)), detail: detail,
                            good: true)
        case .received:
            return Transfer(name: band.filename, detail: locale.text(.transferReceived), good: true)
        case .installing:
            return Transfer(name: band.filename, detail: locale.text(.transferInstalling), good: true)
        case .installed:
            return Transfer(name: band.filename, detail: locale.text(.transferInstalled), good: true)
        case .refused(let reason):
            return Transfer(name: band.filename, detail: locale.text(.transferRefused, reason), good: false)
        case .cancelled(let reason):
            return Transfer(name: band.filename, detail: locale.text(.transferCancelled, reason), good: false)
        }
    }
}
