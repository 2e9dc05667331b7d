import Guidance

/// 24-hour ("21:17") or 12-hour ("9:17 PM") clock in the status bar.
public enum ClockFormat: Equatable {
    case hours24
    case hours12
}

/// How the navigation card shows a distance: as the phone wrote it, or
/// converted into metric or imperial units.
public enum UnitSystem: Equatable {
    case phone
    case metric
    case imperial
}

/// The screen's language, clock and units: the head unit's own words, not
/// the phone's (the instruction text is shown as the phone sent it).
public struct ScreenLocale: Equatable {
    public var language: ScreenLanguage
    public var clock: ClockFormat
    public var units: UnitSystem

    public init(language: ScreenLanguage = .english, clock: ClockFormat = .hours24, units: UnitSystem = .phone) {
        self.language = language
        self.clock = clock
        self.units = units
    }

    /// The text of `key`; English where a translation is missing.
    public func text(_ key: ScreenTextKey) -> String {
        language.table[key] ?? key.english
    }

    /// The text of `key` with `%s` replaced by `name`.
    public func text(_ key: ScreenTextKey, _ name: String) -> String {
        ScreenLocale.fill(text(key), name)
    }

    /// The words for the pairing state (docs/PROTOCOL.md §1 in English).
    public func state(_ s: PairingState) -> String {
        guard language != .english else { return s.text }
        switch s {
        case .discover: return text(.discover)
        case .discovering: return text(.discovering)
        case .connecting(let name): return name.map { text(.connectingTo, $0) } ?? text(.connecting)
        case .connected(let name): return text(.connectedTo, name)
        case .remembered(let name): return text(.connectTo, name)
        }
    }

    /// A button's label.
    public func label(_ action: ScreenAction, for state: PairingState) -> String {
        guard language != .english else { return action.label(for: state) }
        switch action {
        case .discover: return text(.discover)
        case .connect: return text(.connectTo, state.server ?? text(.server))
        case .disconnect: return text(.disconnect)
        case .unpair: return text(.unpair)
        case .pairPhone: return text(.pairPhone)
        case .codesMatch: return text(.codesMatch)
        case .cancelCode: return text(.cancel)
        }
    }

    /// The name of a maneuver, shown when an instruction has no distance.
    public func label(_ m: Maneuver) -> String? {
        switch m {
        case .left: return text(.turnLeft)
        case .right: return text(.turnRight)
        case .slightLeft: return text(.keepLeft)
        case .slightRight: return text(.keepRight)
        case .sharpLeft: return text(.sharpLeft)
        case .sharpRight: return text(.sharpRight)
        case .uTurn: return text(.uTurn)
        case .roundabout: return text(.roundabout)
        case .straight: return text(.straightOn)
        case .merge: return text(.merge)
        case .exitLeft: return text(.exitLeft)
        case .exitRight: return text(.exitRight)
        case .arrive: return text(.arrive)
        case .neutral: return nil
        }
    }

    /// The clock for `minutes` since midnight: "21:17", or "9:17 PM",
    /// "午後9:17" with the 12-hour clock.
    public func clockText(minutesSinceMidnight minutes: Int) -> String {
        let m = ((minutes % 1440) + 1440) % 1440
        let hour = m / 60, minute = m % 60
        let mm = minute < 10 ? "0\(minute)" : "\(minute)"
        guard clock == .hours12 else { return "\(hour):\(mm)" }
        let h12 = hour % 12 == 0 ? 12 : hour % 12
        let period = text(hour < 12 ? .am : .pm)
        return language.periodFirst ? "\(period)\(h12):\(mm)" : "\(h12):\(mm) \(period)"
    }

    /// The distance in the configured units: (number, unit symbol), or nil
    /// to show it as the phone wrote it.
    public func distance(metres: Int) -> (value: String, unit: String)? {
        let m = max(0, metres)
        switch units {
        case .phone:
            return nil
        case .metric:
            if m < 995 { return (m < 100 ? "\(m)" : "\((m + 5) / 10 * 10)", "m") }
            return (decimal(tenths: (m + 50) / 100), "km")
        case .imperial:
            // Below a tenth of a mile, feet in tens ("500 ft").
            let feet = Int(Double(m) / 0.3048 + 0.5)
            if feet < 528 { return (feet < 100 ? "\(feet)" : "\((feet + 5) / 10 * 10)", "ft") }
            return (decimal(tenths: Int(Double(m) / 160.9344 + 0.5)), "mi")
        }
    }

    /// "1.5" / "1,5" from 15, "12" from 120 and above (no tenths past ten).
    func decimal(tenths: Int) -> String {
        if tenths >= 100 { return "\((tenths + 5) / 10)" }
        let separator = language.decimalComma ? "," : "."
        return tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10)\(separator)\(tenths % 10)"
    }

    /// `template` with its first `%s` replaced.
    static func fill(_ template: String, _ value: String) -> String {
        var out = ""
        var it = template.unicodeScalars.makeIterator()
        var done = false
        while let u = it.next() {
            if !done && u == "%" {
                if let v = it.next() {
                    if v == "s" {
                        out += value
                        done = true
                    } else {
                        out.unicodeScalars.append(u)
                        out.unicodeScalars.append(v)
                    }
                } else {
                    out.unicodeScalars.append(u)
                }
            } else {
                out.unicodeScalars.append(u)
            }
        }
        return out
    }
}
