import Guidance
import ScreenValues

/// What the navigation card shows, derived from the notification text:
/// the maneuver (and roundabout exit), the distance split into number and
/// unit (drawn at two sizes on one baseline), the main instruction and the
/// rest of the message. The reading of the text is `Guidance`'s.
public struct NavigationSummary: Equatable {
    public var maneuver: Maneuver
    public var roundaboutExit: Int?
    public var distance: String
    public var unit: String
    public var primary: String
    public var secondary: String
    public var app: String

    /// `locale` chooses the units of the distance: as the phone wrote it,
    /// or converted.
    public init(_ n: NavigationInstruction, locale: ScreenLocale = ScreenLocale()) {
        let g = n.guidance ?? Guidance(title: n.title, message: n.message)
        maneuver = g.maneuver
        roundaboutExit = g.roundaboutExit
        app = NavigationSummary.appName(n.app)
        distance = g.distance?.value ?? ""
        unit = g.distance?.unit.symbol ?? ""
        if let d = g.distance, let shown = locale.distance(metres: d.metres) {
            distance = shown.value
            unit = shown.unit
        }
        if g.title.isEmpty {
            primary = g.message
            secondary = ""
        } else {
            primary = g.title
            secondary = g.message
        }
    }

    /// A friendly name for the known navigation apps.
    static func appName(_ id: String) -> String {
        switch id {
        case "com.google.Maps": return "Google Maps"
        case "com.apple.Maps": return "Apple Maps"
        case "com.waze.iphone": return "Waze"
        default: return id
        }
    }
}
