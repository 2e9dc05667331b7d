import ANCS
import BluetoothCore
import DisplaySettings
import HCI
import Input
import ScreenValues

/// One key of the file: where it lives, how its text becomes part of the
/// configuration, and how it is printed back. Parsing returns nil on
/// success, else what is wrong with the value (the parser adds where, and
/// which value is used instead).
struct ConfigKey {
    let section: String
    let name: String
    let apply: (String, inout HeadUnitConfiguration) -> String?
    let render: (HeadUnitConfiguration) -> String

    var path: String { section + "." + name }
}

extension ConfigKey {
    /// Sections in the order `render()` prints them.
    static let sections = ["bluetooth", "display", "touch", "text", "navigation", "music", "system"]

    /// Every key, in the order `render()` prints them.
    static let all: [ConfigKey] = [
        // [bluetooth]
        ConfigKey(section: "bluetooth", name: "hci", apply: { v, c in
            guard let spec = TransportSpec(v) else { return "'\(v)' is not hciN, uart:/dev/ttyX[:baud] or tcp:HOST:PORT" }
            c.hci = spec
            return nil
        }, render: { $0.hci.description }),
        ConfigKey(section: "bluetooth", name: "device-name", apply: { v, c in
            if v.lowercased() == "auto" { c.deviceName = nil; return nil }
            // The GAP Device Name characteristic holds at most 248 bytes.
            guard !v.isEmpty, v.utf8.count <= 248, !v.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
                return "a name of 1 to 248 bytes without control characters, or auto"
            }
            c.deviceName = v
            return nil
        }, render: { $0.deviceName ?? "auto" }),
        ConfigKey(section: "bluetooth", name: "io-capability", apply: { v, c in
            switch v.lowercased() {
            case "display-only": c.ioCapability = .displayOnly
            case "yes-no": c.ioCapability = .displayYesNo
            case "none": c.ioCapability = .noInputNoOutput
            default: return "'\(v)' is not display-only, yes-no or none"
            }
            return nil
        }, render: { c in
            switch c.ioCapability {
            case .noInputNoOutput: return "none"
            case .displayYesNo: return "yes-no"
            default: return "display-only"
            }
        }),
        ConfigKey(section: "bluetooth", name: "confirm-key", apply: { v, c in
            guard let key = KeyCode(name: v) else { return "'\(v)' is not an evdev key name such as KEY_ENTER, or a key code" }
            c.confirmKey = key
            return nil
        }, render: { $0.confirmKey.name }),
        livenessKey("probe-interval", { $0.probeIntervalSeconds }, { $0.probeIntervalSeconds = $1 }),
        livenessKey("notification-silence", { $0.notificationSilenceSeconds }, { $0.notificationSilenceSeconds = $1 }),
        boolKey("bluetooth", "notifbridge", { $0.notifBridge }, { $0.notifBridge = $1 }),
        wordKey("bluetooth", "phones", "navigationnotifier, settings or both", { $0.phones }, { $0.phones = $1 }),
        ConfigKey(section: "bluetooth", name: "pairing-window", apply: { v, c in
            guard let s = ConfigValues.seconds(v), s >= 30, s <= 3600 else {
                return "'\(v)' is not a time from 30s to 1h (such as 90s, 2m)"
            }
            c.pairingWindowSeconds = s
            return nil
        }, render: { ConfigValues.renderSeconds($0.pairingWindowSeconds) }),
        boolKey("bluetooth", "pair-at-start", { $0.pairAtStart }, { $0.pairAtStart = $1 }),

        // [display]
        ConfigKey(section: "display", name: "output", apply: { v, c in
            do throws(DisplaySpecError) { c.display = try DisplaySpec.parse(v) } catch { return "\(error)" }
            return nil
        }, render: { c in
            // The default card is written short, as an installer would.
            c.display == .drm(device: DisplaySpec.defaultCard) ? "drm" : c.display.description
        }),
        ConfigKey(section: "display", name: "mode", apply: { v, c in
            if v.lowercased() == "auto" { c.mode = nil; return nil }
            guard let m = DisplayMode(v) else { return "'\(v)' is not WIDTHxHEIGHT, WIDTHxHEIGHT@HZ or auto" }
            c.mode = m
            return nil
        }, render: { $0.mode?.description ?? "auto" }),
        ConfigKey(section: "display", name: "connector", apply: { v, c in
            if v.lowercased() == "auto" { c.connector = nil; return nil }
            guard !v.isEmpty, v.utf8.count <= 32, v.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
                return "'\(v)' is not a connector name such as HDMI-A-1, or auto"
            }
            c.connector = v
            return nil
        }, render: { $0.connector ?? "auto" }),
        ConfigKey(section: "display", name: "rotation", apply: { v, c in
            guard let n = Int(v), let r = Rotation(rawValue: n) else { return "'\(v)' is not 0, 90, 180 or 270" }
            c.rotation = r
            return nil
        }, render: { "\($0.rotation.rawValue)" }),
        wordKey("display", "theme", "day, night or auto", { $0.theme }, { $0.theme = $1 }),
        ConfigKey(section: "display", name: "language", apply: { v, c in
            guard let l = ScreenLanguage(code: v) else {
                return "'\(v)' is not one of " + ScreenLanguage.allCases.map { $0.code }.joined(separator: ", ")
            }
            c.language = l
            return nil
        }, render: { $0.language.code }),
        ConfigKey(section: "display", name: "clock", apply: { v, c in
            switch v.lowercased() {
            case "24h", "24": c.clock = .hours24
            case "12h", "12": c.clock = .hours12
            default: return "'\(v)' is not 24h or 12h"
            }
            return nil
        }, render: { $0.clock == .hours12 ? "12h" : "24h" }),
        ConfigKey(section: "display", name: "units", apply: { v, c in
            switch v.lowercased() {
            case "auto": c.units = .phone
            case "metric": c.units = .metric
            case "imperial": c.units = .imperial
            default: return "'\(v)' is not auto, metric or imperial"
            }
            return nil
        }, render: { c in
            switch c.units {
            case .phone: return "auto"
            case .metric: return "metric"
            case .imperial: return "imperial"
            }
        }),

        // [touch]
        boolKey("touch", "swap-axes", { $0.touch.swapAxes }, { $0.touch.swapAxes = $1 }),
        boolKey("touch", "invert-x", { $0.touch.invertX }, { $0.touch.invertX = $1 }),
        boolKey("touch", "invert-y", { $0.touch.invertY }, { $0.touch.invertY = $1 }),

        // [text]
        lengthKey("title-max", { $0.titleMaxLength }, { $0.titleMaxLength = $1 }),
        lengthKey("subtitle-max", { $0.subtitleMaxLength }, { $0.subtitleMaxLength = $1 }),
        lengthKey("message-max", { $0.messageMaxLength }, { $0.messageMaxLength = $1 }),
        ConfigKey(section: "text", name: "fonts", apply: { v, c in
            if v.lowercased() == "auto" { c.fontsDirectory = nil; return nil }
            guard ConfigValues.isPath(v) else { return "'\(v)' is not an absolute directory path, or auto" }
            c.fontsDirectory = v
            return nil
        }, render: { $0.fontsDirectory ?? "auto" }),
        ConfigKey(section: "text", name: "fallback-fonts", apply: { v, c in
            let paths = ConfigValues.list(v)
            if let bad = paths.first(where: { !ConfigValues.isPath($0) }) { return "'\(bad)' is not an absolute file path" }
            c.fallbackFonts = paths
            return nil
        }, render: { $0.fallbackFonts.joined(separator: ", ") }),

        // [navigation], [music]
        appsKey("navigation", { $0.filter.navigationApps }, { $0.filter.navigationApps = $1 }),
        categoriesKey("navigation", { $0.filter.navigationCategories }, { $0.filter.navigationCategories = $1 }),
        appsKey("music", { $0.filter.musicApps }, { $0.filter.musicApps = $1 }),
        categoriesKey("music", { $0.filter.musicCategories }, { $0.filter.musicCategories = $1 }),

        // [system]
        ConfigKey(section: "system", name: "log-level", apply: { v, c in
            guard let level = LogLevel(name: v.lowercased()) else { return "'\(v)' is not error, warn, info, debug or trace" }
            c.logLevel = level
            return nil
        }, render: { $0.logLevel.name }),
        ConfigKey(section: "system", name: "state", apply: { v, c in
            guard ConfigValues.isPath(v) else { return "'\(v)' is not an absolute directory path" }
            c.stateDirectory = v
            return nil
        }, render: { $0.stateDirectory }),
    ]

    // Key paths need runtime metadata that Embedded Swift lacks: the
    // helpers below take a getter and a setter instead.
    typealias Getter<T> = (HeadUnitConfiguration) -> T
    typealias Setter<T> = (inout HeadUnitConfiguration, T) -> Void

    /// A key whose values are the words of `Word` (given in any case).
    static func wordKey<Word: RawRepresentable>(_ section: String, _ name: String, _ choices: String,
                                                _ get: @escaping Getter<Word>, _ set: @escaping Setter<Word>) -> ConfigKey
        where Word.RawValue == String {
        ConfigKey(section: section, name: name, apply: { v, c in
            guard let word = Word(rawValue: v.lowercased()) else { return "'\(v)' is not \(choices)" }
            set(&c, word)
            return nil
        }, render: { get($0).rawValue })
    }

    static func boolKey(_ section: String, _ name: String, _ get: @escaping Getter<Bool>,
                        _ set: @escaping Setter<Bool>) -> ConfigKey {
        ConfigKey(section: section, name: name, apply: { v, c in
            guard let b = ConfigValues.bool(v) else { return "'\(v)' is not yes or no" }
            set(&c, b)
            return nil
        }, render: { ConfigValues.render(get($0)) })
    }

    /// ANCS liveness timers, in seconds: from 30 s to a day.
    static func livenessKey(_ name: String, _ get: @escaping Getter<Int64>, _ set: @escaping Setter<Int64>) -> ConfigKey {
        ConfigKey(section: "bluetooth", name: name, apply: { v, c in
            guard let s = ConfigValues.seconds(v), s >= 30, s <= 24 * 3600 else {
                return "'\(v)' is not a time from 30s to 24h (such as 90s, 15m, 1h)"
            }
            set(&c, s)
            return nil
        }, render: { ConfigValues.renderSeconds(get($0)) })
    }

    /// ANCS caps: the phone cuts the attribute to this many bytes.
    static func lengthKey(_ name: String, _ get: @escaping Getter<UInt16>, _ set: @escaping Setter<UInt16>) -> ConfigKey {
        ConfigKey(section: "text", name: name, apply: { v, c in
            guard let n = UInt16(v), n >= 8, n <= 1024 else { return "'\(v)' is not a number of bytes from 8 to 1024" }
            set(&c, n)
            return nil
        }, render: { "\(get($0))" })
    }

    static func appsKey(_ section: String, _ get: @escaping Getter<[String]>, _ set: @escaping Setter<[String]>) -> ConfigKey {
        ConfigKey(section: section, name: "apps", apply: { v, c in
            let apps = ConfigValues.list(v)
            if let bad = apps.first(where: { !ConfigValues.isAppIdentifier($0) }) {
                return "'\(bad)' is not an app identifier such as com.google.Maps"
            }
            set(&c, apps)
            return nil
        }, render: { get($0).joined(separator: ", ") })
    }

    static func categoriesKey(_ section: String, _ get: @escaping Getter<[CategoryID]>,
                              _ set: @escaping Setter<[CategoryID]>) -> ConfigKey {
        ConfigKey(section: section, name: "categories", apply: { v, c in
            var categories: [CategoryID] = []
            for item in ConfigValues.list(v) where item.lowercased() != "none" {
                guard let category = CategoryID(name: item) else {
                    return "'\(item)' is not an ANCS category (Other, IncomingCall, MissedCall, Voicemail, Social, "
                        + "Schedule, Email, News, HealthAndFitness, BusinessAndFinance, Location, Entertainment)"
                }
                categories.append(category)
            }
            set(&c, categories)
            return nil
        }, render: { c in
            let list = get(c)
            // Reserved values have no name that reads back: print their number.
            return list.isEmpty ? "none" : list.map { CategoryID(name: $0.name) == $0 ? $0.name : "\($0.rawValue)" }
                .joined(separator: ", ")
        })
    }
}
