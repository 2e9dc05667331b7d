import ANCS
import BluetoothCore
import DisplaySettings
import HCI
import Input
import Notifications
import ScreenValues

/// Everything `/etc/headunit.conf` can set, with the default of every key.
/// A plain value: `ConfigParser` fills it from the file's bytes, `render()`
/// prints it back in the file's format, and the accessors at the end turn
/// it into the settings each layer takes. docs/CONFIGURATION.md documents
/// every key.
public struct HeadUnitConfiguration: Equatable {
    // [bluetooth]
    /// Where the controller is (docs/PROTOCOL.md §5); `--hci` overrides it.
    public var hci: TransportSpec = .userChannel(device: 0)
    /// The GAP Device Name the head unit serves; nil: "NavigationNotifier CLIENTNAME".
    public var deviceName: String?
    /// DisplayOnly shows a passkey (the default); NoInputNoOutput pairs with
    /// Just Works; DisplayYesNo uses Numeric Comparison with the confirm key.
    public var ioCapability: IOCapability = .displayOnly
    /// The evdev key that accepts a Numeric Comparison value.
    public var confirmKey: KeyCode = .enter
    /// How often the phone's notification service is probed for life (ANCS).
    public var probeIntervalSeconds: Int64 = 15 * 60
    /// Answered probes beside a Notification Source silent this long: the
    /// subscriptions are written again (ANCS).
    public var notificationSilenceSeconds: Int64 = 3 * 3600
    /// The NotifBridge receiver (docs/NOTIFBRIDGE.md): its GATT service and advertisement.
    public var notifBridge = true
    /// Which phones the head unit takes: those running the NavigationNotifier
    /// app (it finds them), those paired from the phone's Settings (it
    /// advertises), or both at once.
    public var phones: PhoneRoles = .both
    /// How long pairing mode stays open once asked for (console `pair`,
    /// the idle screen's button, `pair-at-start`).
    public var pairingWindowSeconds: Int64 = 120
    /// Pairing mode at every start, for `pairing-window`, even with a bonded phone.
    public var pairAtStart = false

    // [display]
    /// Where frames go; `--display` overrides it.
    public var display: DisplaySpec = .drm(device: DisplaySpec.defaultCard)
    /// The panel mode; nil: the mode the display prefers (or 800x480 for png/none).
    public var mode: DisplayMode?
    /// The DRM connector (HDMI-A-1, DSI-1); nil: the first connected one.
    public var connector: String?
    public var rotation: Rotation = .none
    public var theme: ThemeSetting = .auto
    /// The language of the head unit's own words on screen.
    public var language: ScreenLanguage = .english
    public var clock: ClockFormat = .hours24
    /// Distances as the phone writes them, or converted.
    public var units: UnitSystem = .phone

    // [touch]
    public var touch = TouchCalibration()

    // [text]
    /// Longest title, subtitle and message asked of the phone, in bytes.
    public var titleMaxLength: UInt16 = 64
    public var subtitleMaxLength: UInt16 = 64
    public var messageMaxLength: UInt16 = 256
    /// Where DejaVuSans.ttf and DejaVuSans-Bold.ttf are; nil: searched for.
    public var fontsDirectory: String?
    /// Fonts tried in order for characters the main font lacks.
    public var fallbackFonts: [String] = []

    // [navigation], [music]
    public var filter = NotificationFilter()

    // [system]
    public var logLevel: LogLevel = .info
    /// `--state` overrides it.
    public var stateDirectory = "/var/lib/headunit"

    public init() {}

    /// A configuration file larger than this is cut here (with a diagnostic):
    /// read at most one byte more, so the cut is noticed.
    public static let maximumFileSize = 64 * 1024
    public static let defaultPath = "/etc/headunit.conf"

    // MARK: - What each layer takes
    // (The pairing policy and the display options are the shell's to make,
    // App's HeadUnitConfiguration+Layers.swift: their types belong to SMP and
    // to the renderer, which the configuration does not link.)

    /// The ANCS client's limits: the text caps and the probe interval on
    /// top of `base` (whose timers tests may have shortened).
    public func ancs(_ base: ANCSConfiguration = ANCSConfiguration()) -> ANCSConfiguration {
        var c = base
        c.titleMaxLength = titleMaxLength
        c.subtitleMaxLength = subtitleMaxLength
        c.messageMaxLength = messageMaxLength
        c.probeIntervalMilliseconds = probeIntervalSeconds * 1000
        c.notificationSourceSilenceLimitMilliseconds = notificationSilenceSeconds * 1000
        return c
    }

    /// The screen's language, clock and units.
    public var screenLocale: ScreenLocale { ScreenLocale(language: language, clock: clock, units: units) }

    /// The confirm key and the touch calibration for every input device.
    public var input: InputSettings { InputSettings(confirmKey: confirmKey, calibration: touch) }
}

/// A display mode as written in the file: `1280x720` or `1280x720@60`.
public struct DisplayMode: Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    /// Refresh rate in Hz; nil: the highest the display offers at that size.
    public var refresh: Int?

    public init(width: Int, height: Int, refresh: Int? = nil) {
        self.width = width
        self.height = height
        self.refresh = refresh
    }

    public static let maximumSide = 8192

    public init?(_ text: String) {
        guard let m = DRMPreferences.parseMode(text), m.width <= DisplayMode.maximumSide,
              m.height <= DisplayMode.maximumSide, (m.refresh ?? 1) <= 1000 else { return nil }
        self.init(width: m.width, height: m.height, refresh: m.refresh)
    }

    public var description: String { refresh.map { "\(width)x\(height)@\($0)" } ?? "\(width)x\(height)" }
}

/// Day or night colours; `auto` follows the clock.
public enum ThemeSetting: String, Equatable {
    case day
    case night
    case auto

    /// `auto` is night from 19:00 to 07:00 and day otherwise, and day while
    /// the time is unknown (a Pi has no battery clock until the phone tells it).
    public func isNight(minutesSinceMidnight: Int?) -> Bool {
        switch self {
        case .day: return false
        case .night: return true
        case .auto:
            guard let m = minutesSinceMidnight else { return false }
            return m >= 19 * 60 || m < 7 * 60
        }
    }
}

/// How the head unit meets phones (docs/PROTOCOL.md §7).
public enum PhoneRoles: String, Equatable {
    /// It is the central: it looks for the NavigationNotifier app's service.
    case navigationNotifier = "navigationnotifier"
    /// It is the accessory: it advertises, and the phone pairs from
    /// Settings → Bluetooth (and NotifBridge connects).
    case settings
    /// Both at once: the first phone bonded and encrypted is the phone.
    case both

    public var findsNavigationNotifierPhones: Bool { self != .settings }
    public var advertises: Bool { self != .navigationNotifier }
}
