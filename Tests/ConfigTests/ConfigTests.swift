import ANCS
import App
import BluetoothCore
import DisplaySettings
import Foundation
import Graphics
import HCI
import Input
import Notifications
import ScreenValues
import Testing
@testable import Config

private func parse(_ text: String, file: String = "/etc/headunit.conf") -> ConfigParseResult {
    HeadUnitConfiguration.parse(Array(text.utf8), file: file)
}

/// The project's top folder, for the documentation and the example file.
private let top = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite struct ConfigFileTests {
    @Test func emptyFileIsAllDefaults() {
        let r = parse("")
        #expect(r.configuration == HeadUnitConfiguration())
        #expect(r.diagnostics.isEmpty)
        #expect(r.keysSet.isEmpty)
    }

    @Test func defaults() {
        let c = HeadUnitConfiguration()
        #expect(c.hci == .userChannel(device: 0))
        #expect(c.display == .drm(device: "/dev/dri/card0"))
        #expect(c.ioCapability == .displayOnly)
        #expect(c.confirmKey == .enter)
        #expect(c.filter == NotificationFilter())
        #expect(c.logLevel == .info)
        #expect(c.stateDirectory == "/var/lib/headunit")
        #expect(c.theme == .auto)
        #expect(c.rotation == .none)
        #expect(c.screenLocale == ScreenLocale(language: .english, clock: .hours24, units: .phone))
        #expect(c.ancs().probeIntervalMilliseconds == ANCSConfiguration().probeIntervalMilliseconds)
        #expect(c.ancs().notificationSourceSilenceLimitMilliseconds == ANCSConfiguration().notificationSourceSilenceLimitMilliseconds)
        #expect(c.ancs().messageMaxLength == ANCSConfiguration().messageMaxLength)
    }

    @Test func everyKeyParsesAndReachesItsLayer() {
        let r = parse("""
        [bluetooth]
        hci = tcp:127.0.0.1:9000
        device-name = My Car
        io-capability = yes-no
        confirm-key = KEY_OK
        probe-interval = 90s
        notification-silence = 2h
        notifbridge = off
        phones = settings
        pairing-window = 5m
        pair-at-start = yes
        [display]
        output = png:/tmp/frames
        mode = 1280x720@60
        connector = HDMI-A-2
        rotation = 270
        theme = night
        language = de
        clock = 12h
        units = imperial
        [touch]
        swap-axes = yes
        invert-x = on
        invert-y = false
        [text]
        title-max = 32
        subtitle-max = 16
        message-max = 512
        fonts = /opt/fonts
        fallback-fonts = /usr/share/fonts/a.ttf, /usr/share/fonts/b.ttc
        [navigation]
        apps = com.example.nav
        categories = Location, Other
        [music]
        apps =
        categories = none
        [system]
        log-level = debug
        state = /data/headunit
        """)
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics)")
        let c = r.configuration
        #expect(c.hci == .tcp(host: "127.0.0.1", port: 9000))
        #expect(c.deviceName == "My Car")
        #expect(c.pairing.ioCapability == .displayYesNo)
        #expect(c.pairing.requireMITM)
        #expect(c.input.confirmKey == .ok)
        #expect(c.ancs().probeIntervalMilliseconds == 90_000)
        #expect(c.ancs().notificationSourceSilenceLimitMilliseconds == 2 * 3600 * 1000)
        #expect(!c.notifBridge)
        #expect(c.display == .png(directory: "/tmp/frames"))
        #expect(c.displayOptions.drm == DRMPreferences(connector: "HDMI-A-2", width: 1280, height: 720, refresh: 60))
        #expect(c.displayOptions.virtualSize == Size(width: 1280, height: 720))
        #expect(c.displayOptions.rotation == .clockwise270)
        #expect(c.theme == .night)
        #expect(c.screenLocale == ScreenLocale(language: .german, clock: .hours12, units: .imperial))
        #expect(c.input.calibration == TouchCalibration(swapAxes: true, invertX: true, invertY: false))
        let ancs = c.ancs()
        #expect(ancs.titleMaxLength == 32 && ancs.subtitleMaxLength == 16 && ancs.messageMaxLength == 512)
        #expect(c.fontsDirectory == "/opt/fonts")
        #expect(c.fallbackFonts == ["/usr/share/fonts/a.ttf", "/usr/share/fonts/b.ttc"])
        #expect(c.filter.navigationApps == ["com.example.nav"])
        #expect(c.filter.navigationCategories == [.location, .other])
        #expect(c.filter.musicApps == [])
        #expect(c.filter.musicCategories == [])
        #expect(c.filter.kind(app: AppIdentifier("com.spotify.client"), category: .entertainment) == .other)
        #expect(c.logLevel == .debug)
        #expect(c.stateDirectory == "/data/headunit")
        #expect(c.phones == .settings && !c.phones.findsNavigationNotifierPhones && c.phones.advertises)
        #expect(c.pairingWindowSeconds == 300 && c.pairAtStart)
        #expect(r.keysSet.count == HeadUnitConfiguration.keyPaths.count)
    }

    @Test func noneIsJustWorks() {
        let c = parse("[bluetooth]\nio-capability = none\n").configuration
        #expect(c.pairing.ioCapability == .noInputNoOutput)
        #expect(!c.pairing.requireMITM)
    }

    /// Each file has one bad line: exactly one diagnostic, naming the file,
    /// that line and the key; the key keeps its default; the good lines
    /// around it still apply.
    @Test(arguments: [
        ("[bluetooth]\nhci = bluetooth0", 2, "bluetooth.hci", "'bluetooth0' is not hciN, uart:/dev/ttyX[:baud] or tcp:HOST:PORT; using hci0"),
        ("[bluetooth]\nhci = uart:/dev/ttyS0:12345", 2, "bluetooth.hci", "using hci0"),
        ("[bluetooth]\ndevice-name = \(String(repeating: "n", count: 249))", 2, "bluetooth.device-name", "using auto"),
        ("[bluetooth]\nio-capability = keyboard", 2, "bluetooth.io-capability", "'keyboard' is not display-only, yes-no or none; using display-only"),
        ("[bluetooth]\nconfirm-key = KEY_WHATEVER", 2, "bluetooth.confirm-key", "using KEY_ENTER"),
        ("[bluetooth]\nprobe-interval = 5s", 2, "bluetooth.probe-interval", "using 15m"),
        ("[bluetooth]\nprobe-interval = soon", 2, "bluetooth.probe-interval", "'soon' is not a time from 30s to 24h (such as 90s, 15m, 1h); using 15m"),
        ("[display]\noutput = hdmi", 2, "display.output", "using drm"),
        ("[display]\noutput = png:", 2, "display.output", "nothing after the colon"),
        ("[display]\nmode = 1280*720", 2, "display.mode", "'1280*720' is not WIDTHxHEIGHT, WIDTHxHEIGHT@HZ or auto; using auto"),
        ("[display]\nmode = 0x480", 2, "display.mode", "using auto"),
        ("[display]\nmode = 99999x480", 2, "display.mode", "using auto"),
        ("[display]\nconnector = HDMI A 1", 2, "display.connector", "using auto"),
        ("[display]\nrotation = 45", 2, "display.rotation", "'45' is not 0, 90, 180 or 270; using 0"),
        ("[display]\nrotation = -90", 2, "display.rotation", "using 0"),
        ("[display]\ntheme = dusk", 2, "display.theme", "'dusk' is not day, night or auto; using auto"),
        ("[touch]\nswap-axes = maybe", 2, "touch.swap-axes", "'maybe' is not yes or no; using no"),
        ("[text]\ntitle-max = 70000", 2, "text.title-max", "'70000' is not a number of bytes from 8 to 1024; using 64"),
        ("[text]\nmessage-max = 0", 2, "text.message-max", "using 256"),
        ("[text]\nfonts = fonts/", 2, "text.fonts", "'fonts/' is not an absolute directory path, or auto; using auto"),
        ("[text]\nfallback-fonts = /a.ttf, b.ttf", 2, "text.fallback-fonts", "'b.ttf' is not an absolute file path; using an empty list"),
        ("[navigation]\napps = com.google.Maps, Google Maps", 2, "navigation.apps", "'Google Maps' is not an app identifier such as com.google.Maps; using com.google.Maps, com.apple.Maps, com.waze.iphone"),
        ("[music]\ncategories = Music", 2, "music.categories", "'Music' is not an ANCS category"),
        ("[system]\nlog-level = verbose", 2, "system.log-level", "'verbose' is not error, warn, info, debug or trace; using info"),
        ("[system]\nstate = var/lib", 2, "system.state", "using /var/lib/headunit"),
        ("[display]\nrotaton = 90", 2, "display.rotaton", "unknown key; ignored (did you mean rotation?)"),
        ("[display]\nhci = hci1", 2, "display.hci", "unknown key; ignored (it belongs in [bluetooth])"),
        ("[display]\nbrightness = 80", 2, "display.brightness", "unknown key; ignored"),
        ("hci = hci1\n[display]", 1, "hci", "key outside a section; ignored (it belongs in [bluetooth])"),
        ("[dispaly]\nrotation = 90\ntheme = night", 1, "[dispaly]", "unknown section; its keys are ignored (did you mean [display]?)"),
        ("[bluetooth]\ndevice-name = \"My Car", 2, "bluetooth.device-name", "a quote is not closed; using auto"),
    ] as [(String, Int, String, String)])
    func oneBadLine(text: String, line: Int, key: String, message: String) throws {
        // Good lines before (when the text opens a section) and after the bad one.
        let before = text.hasPrefix("[") ? "[touch]\ninvert-y = yes\n" : ""
        let file = before + text + "\n[system]\nstate = /data\n"
        let r = parse(file, file: "/boot/headunit.conf")
        try #require(r.diagnostics.count == 1, "\(r.diagnostics)")
        let d = r.diagnostics[0]
        let number = line + (before.isEmpty ? 0 : 2)
        #expect(d.file == "/boot/headunit.conf")
        #expect(d.line == number)
        #expect(d.key == key)
        #expect(d.message.contains(message), "\(d.message)")
        #expect(d.description.hasPrefix("/boot/headunit.conf:\(number): \(key): "))
        var expected = HeadUnitConfiguration()
        expected.touch.invertY = !before.isEmpty
        expected.stateDirectory = "/data"
        #expect(r.configuration == expected)
    }

    @Test(arguments: [
        ("this is not a setting", "'this is not a setting' is not a 'key = value' line; ignored"),
        ("[display", "'[display' is not a [section] line; the keys after it are ignored"),
        ("= 90", "a value without a key; ignored"),
        (String(repeating: "x", count: 1025), "line longer than 1024 bytes; ignored"),
    ])
    func oneBadLineWithoutKey(text: String, message: String) throws {
        let r = parse("[system]\nlog-level = warn\n" + text + "\n[system]\nstate = /data\n")
        try #require(r.diagnostics.count == 1, "\(r.diagnostics)")
        #expect(r.diagnostics[0].line == 3)
        #expect(r.diagnostics[0].key == nil)
        #expect(r.diagnostics[0].message == message)
        #expect(r.configuration.logLevel == .warning)
        #expect(r.configuration.stateDirectory == "/data")
    }

    @Test func invalidUTF8Line() throws {
        var bytes = Array("[display]\nrotation = 90\n".utf8)
        bytes += [0x74, 0x68, 0x65, 0x6D, 0x65, 0x3D, 0xC3, 0x28, 0x0A] // "theme=" + broken UTF-8
        bytes += Array("theme = night\n".utf8)
        let r = HeadUnitConfiguration.parse(bytes, file: "f")
        try #require(r.diagnostics.count == 1)
        #expect(r.diagnostics[0].description == "f:3: not UTF-8 text; line ignored")
        #expect(r.configuration.rotation == .clockwise90)
        #expect(r.configuration.theme == .night)
    }

    @Test func duplicateKeyLastWinsWithOneWarning() throws {
        let r = parse("[display]\nrotation = 90\ntheme = day\nrotation = 180\n")
        try #require(r.diagnostics.count == 1)
        #expect(r.diagnostics[0].description == "/etc/headunit.conf:4: display.rotation: also set on line 2; this later line wins")
        #expect(r.configuration.rotation == .upsideDown)
        // A bad repeat keeps the earlier good value, and says so.
        let bad = parse("[display]\nrotation = 90\nrotation = 45\n")
        #expect(bad.diagnostics.map(\.description) == ["/etc/headunit.conf:3: display.rotation: '45' is not 0, 90, 180 or 270; using 90"])
        #expect(bad.configuration.rotation == .clockwise90)
    }

    @Test func lineEndsAndByteOrderMark() {
        let lf = parse("[display]\nrotation = 90\ntheme = night\n")
        let crlf = parse("\u{FEFF}[display]\r\nrotation = 90\r\ntheme = night\r\n")
        let cr = parse("[display]\rrotation = 90\rtheme = night")
        for r in [lf, crlf, cr] {
            #expect(r.diagnostics.isEmpty, "\(r.diagnostics)")
            #expect(r.configuration.rotation == .clockwise90)
            #expect(r.configuration.theme == .night)
        }
        // Line numbers count CRLF once.
        let counted = parse("[display]\r\n\r\nrotation = 7\r\n")
        #expect(counted.diagnostics.first?.line == 3)
    }

    @Test func commentsAndQuotes() {
        let r = parse("""
          # a comment
        [ Display ]   # section comment
        Rotation = 90   # mounted on its side
        output = png:/tmp/a#b
        [bluetooth]
        device_name = "  My #1 Car "  # kept as quoted
        """)
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics)")
        #expect(r.configuration.rotation == .clockwise90)
        #expect(r.configuration.display == .png(directory: "/tmp/a#b"))
        #expect(r.configuration.deviceName == "  My #1 Car ")
    }

    @Test func binaryFileKeepsDefaults() throws {
        var bytes = Array("[display]\nrotation = 90\n".utf8)
        bytes += [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00] // an ELF header
        let r = HeadUnitConfiguration.parse(bytes, file: "/etc/headunit.conf")
        try #require(r.diagnostics.count == 1)
        #expect(r.diagnostics[0].line == nil)
        #expect(r.diagnostics[0].description.hasPrefix("/etc/headunit.conf: a binary file"))
        #expect(r.configuration == HeadUnitConfiguration())
    }

    @Test func garbageIsBoundedAndNeverTraps() {
        var seed: UInt64 = 42
        for round in 0..<50 {
            var bytes: [UInt8] = []
            for _ in 0..<(round * 97) {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                var b = UInt8(truncatingIfNeeded: seed >> 33)
                if b == 0 { b = 0x0A }
                bytes.append(b)
            }
            let r = HeadUnitConfiguration.parse(bytes, file: "g")
            #expect(r.diagnostics.count <= ConfigParser.maximumDiagnostics + 1)
        }
        // Many bad lines: 20 reported, then one line that says more exist.
        let many = parse((1...100).map { "junk \($0)" }.joined(separator: "\n"))
        #expect(many.diagnostics.count == ConfigParser.maximumDiagnostics + 1)
        #expect(many.diagnostics.last?.description == "/etc/headunit.conf: more problems after line 21 not shown; is this the right file?")
    }

    @Test func hugeFileIsCut() throws {
        var text = "[display]\nrotation = 90\n"
        while text.utf8.count < HeadUnitConfiguration.maximumFileSize { text += "# padding padding padding padding\n" }
        text += "theme = night\n" // beyond the limit
        let r = parse(text)
        try #require(r.diagnostics.count == 1)
        #expect(r.diagnostics[0].message == "larger than 64 KiB; only the first 64 KiB are read")
        #expect(r.configuration.rotation == .clockwise90)
        #expect(r.configuration.theme == .auto)
        // A huge file that is one line has nothing readable left.
        let oneLine = HeadUnitConfiguration.parse([UInt8](repeating: 0x61, count: 200_000), file: "x")
        #expect(oneLine.diagnostics.count == 1)
        #expect(oneLine.configuration == HeadUnitConfiguration())
    }

    @Test func renderRoundTrips() {
        var c = HeadUnitConfiguration()
        #expect(parse(c.render()).configuration == c)
        #expect(parse(c.render()).diagnostics.isEmpty)
        c.hci = .uart(path: "/dev/ttyAMA0", baud: 921_600)
        c.deviceName = " #1 \"car\" "
        c.ioCapability = .noInputNoOutput
        c.confirmKey = KeyCode(0x1A2)
        c.probeIntervalSeconds = 95
        c.notificationSilenceSeconds = 5400
        c.display = .fbdev(device: "/dev/fb1")
        c.mode = DisplayMode(width: 800, height: 480)
        c.connector = "DSI-1"
        c.rotation = .clockwise90
        c.theme = .day
        c.touch = TouchCalibration(swapAxes: true, invertX: false, invertY: true)
        c.titleMaxLength = 100
        c.fontsDirectory = "/usr/local/share/fonts dir"
        c.fallbackFonts = ["/f/a.ttf", "/f/b.ttf"]
        c.filter.navigationApps = []
        c.filter.navigationCategories = [CategoryID(200), .location]
        c.filter.musicApps = ["com.example.Music_2"]
        c.logLevel = .trace
        c.stateDirectory = "/srv/hu"
        let text = c.render()
        let r = parse(text)
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics)\n\(text)")
        #expect(r.configuration == c, "\(text)")
        #expect(parse(r.configuration.render()).configuration.render() == text)
    }

    @Test func renderLooksLikeTheFile() {
        let text = HeadUnitConfiguration().render()
        #expect(text.contains("[display]\noutput = drm\nmode = auto\n"))
        #expect(text.contains("[navigation]\napps = com.google.Maps, com.apple.Maps, com.waze.iphone\ncategories = Location\n"))
        #expect(text.contains("[text]\ntitle-max = 64\n"))
        #expect(text.contains("fallback-fonts =\n"))
    }

    @Test func exampleFileParsesToTheDefaults() throws {
        let bytes = try [UInt8](Data(contentsOf: top.appendingPathComponent("board/headunit.conf.example")))
        let r = HeadUnitConfiguration.parse(bytes, file: "headunit.conf.example")
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics)")
        #expect(r.configuration == HeadUnitConfiguration())
        // It sets every key, so an installer sees them all.
        #expect(r.keysSet == Set(HeadUnitConfiguration.keyPaths))
    }

    @Test func everyKeyIsDocumented() throws {
        let doc = try String(contentsOf: top.appendingPathComponent("docs/CONFIGURATION.md"), encoding: .utf8)
        for path in HeadUnitConfiguration.keyPaths {
            let parts = path.split(separator: ".")
            let section = String(parts[0]), key = String(parts[1])
            #expect(doc.contains("### `[\(section)]`") || doc.contains("`[\(section)]`"), "section \(section)")
            #expect(doc.contains("| `\(key)` |") || doc.contains("| `\(path)` |"), "key \(path) undocumented")
        }
    }

    @Test func themeFollowsTheClock() {
        #expect(!ThemeSetting.auto.isNight(minutesSinceMidnight: nil))
        #expect(!ThemeSetting.auto.isNight(minutesSinceMidnight: 12 * 60))
        #expect(ThemeSetting.auto.isNight(minutesSinceMidnight: 23 * 60))
        #expect(ThemeSetting.auto.isNight(minutesSinceMidnight: 6 * 60 + 59))
        #expect(!ThemeSetting.auto.isNight(minutesSinceMidnight: 7 * 60))
        #expect(ThemeSetting.night.isNight(minutesSinceMidnight: nil))
        #expect(!ThemeSetting.day.isNight(minutesSinceMidnight: 23 * 60))
    }

    @Test func values() {
        #expect(ConfigValues.seconds("900") == 900)
        #expect(ConfigValues.seconds("15m") == 900)
        #expect(ConfigValues.seconds("1h") == 3600)
        #expect(ConfigValues.seconds("90 s") == 90)
        #expect(ConfigValues.seconds("-5") == nil)
        #expect(ConfigValues.seconds("m") == nil)
        #expect(ConfigValues.seconds("99999999999999999999h") == nil)
        #expect(ConfigValues.list(" a , b,, c, ") == ["a", "b", "c"])
        #expect(ConfigValues.list("   ") == [])
        // Quoted values may hold quotes; a comment may follow.
        #expect(parse("[bluetooth]\ndevice-name = \"a \"b\" c\" # \"x\"\n").configuration.deviceName == "a \"b\" c")
        #expect(parse("[bluetooth]\ndevice-name = \"a\"b\n").diagnostics.count == 1)
        #expect(closest("rotaton", among: ["rotation", "theme"]) == "rotation")
        #expect(closest("zzz", among: ["rotation", "theme"]) == nil)
    }
}

/// The screen's language, clock and units (`[display]`).
@Suite struct ScreenLocaleConfigTests {
    @Test(arguments: [
        ("en", ScreenLanguage.english), ("ES", .spanish), ("de", .german), ("fr", .french), ("it", .italian),
        ("pt-BR", .portuguese), ("nl", .dutch), ("pl", .polish), ("tr", .turkish), ("ja", .japanese),
        ("zh-Hans", .chineseSimplified), ("zh-CN", .chineseSimplified), ("zh", .chineseSimplified),
        ("zh-Hant", .chineseTraditional), ("zh-TW", .chineseTraditional), ("ko", .korean), ("ar", .arabic),
    ])
    func language(_ value: String, _ expected: ScreenLanguage) {
        let r = parse("[display]\nlanguage = \(value)\n")
        #expect(r.diagnostics.isEmpty, "\(r.diagnostics)")
        #expect(r.configuration.language == expected)
        // What `config` prints reads back the same.
        #expect(parse(r.configuration.render()).configuration.language == expected)
    }

    @Test func unknownLanguageIsEnglishWithADiagnostic() throws {
        let r = parse("[display]\nlanguage = klingon\n")
        try #require(r.diagnostics.count == 1)
        #expect(r.diagnostics[0].description
            == "/etc/headunit.conf:2: display.language: 'klingon' is not one of en, es, de, fr, it, pt, nl, pl, tr, ja, zh-Hans, zh-Hant, ko, ar; using en")
        #expect(r.configuration.language == .english)
    }

    @Test func clockAndUnits() throws {
        let r = parse("[display]\nclock = 12H\nunits = Metric\n")
        #expect(r.diagnostics.isEmpty)
        #expect(r.configuration.clock == .hours12 && r.configuration.units == .metric)
        let bad = parse("[display]\nclock = 13h\nunits = furlongs\n")
        #expect(bad.diagnostics.map(\.description) == [
            "/etc/headunit.conf:2: display.clock: '13h' is not 24h or 12h; using 24h",
            "/etc/headunit.conf:3: display.units: 'furlongs' is not auto, metric or imperial; using auto",
        ])
        #expect(bad.configuration.screenLocale == ScreenLocale())
    }
}
