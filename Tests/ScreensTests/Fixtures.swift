import Foundation
import Graphics
@testable import Screens
import ScreenValues

/// Paths of the shipped fonts, found from this file's location.
enum TestFonts {
    static let root: String = {
        var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast(3)  // Tests/ScreensTests/Fixtures.swift
        return parts.joined(separator: "/")
    }()
    static let regular = root + "/fonts/DejaVuSans.ttf"
    static let bold = root + "/fonts/DejaVuSans-Bold.ttf"
    static let goldenDir = root + "/Tests/ScreensTests/Golden"

    static func load() throws -> Fonts { try Fonts(regular: regular, bold: bold) }

    /// With the script fonts from the Debian packages; a missing one is an
    /// error naming its package, so the test fails instead of drawing boxes.
    static func loadWithScripts() throws -> Fonts {
        let found = StandardFonts.locate(directory: nil) { FileManager.default.isReadableFile(atPath: $0) }
        if let e = found.missing.first {
            throw FontError(path: e.packageDirectory + "/" + e.regular, code: 0, reason: "missing: install \(e.package) (scripts/setup)")
        }
        return try Fonts(regular: regular, bold: bold, scriptFonts: found.fonts)
    }
}

/// Every screen the head unit can show, with realistic content.
enum Fixtures {
    static let phone = "Alice's iPhone"

    static func idleDiscover() -> ScreenModel {
        ScreenModel(pairing: .discover, clock: "9:41", actions: ScreenModel.defaultActions(for: .discover))
    }

    static func idleDiscovering() -> ScreenModel {
        ScreenModel(pairing: .discovering, clock: "9:41", hint: "Open the Server app on the iPhone",
                    actions: ScreenModel.defaultActions(for: .discovering))
    }

    static func idleRemembered() -> ScreenModel {
        let s = PairingState.remembered(server: phone)
        return ScreenModel(pairing: s, clock: "18:05", theme: .day, actions: ScreenModel.defaultActions(for: s))
    }

    static func idleConnectedHint() -> ScreenModel {
        let s = PairingState.connected(server: phone)
        return ScreenModel(pairing: s, clock: "18:05", dropped: [1, 0, 2, 0, 5, 0, 3],
                           hint: "Share System Notifications is off on the iPhone",
                           actions: ScreenModel.defaultActions(for: s))
    }

    static func pairing() -> ScreenModel {
        ScreenModel(pairing: .connecting(server: phone), clock: "9:41", passkey: "047193")
    }

    static func pairingForgotten() -> ScreenModel {
        ScreenModel(pairing: .connecting(server: phone), clock: "9:41", passkey: "512608",
                    hint: "Phone forgot this head unit: pair again", theme: .day)
    }

    /// A GhostDrop transfer's code, while music plays: the code takes the screen.
    static func transferCode() -> ScreenModel {
        var model = ScreenModel(pairing: .connected(server: phone), clock: "9:41", nowPlaying: music())
        model.transferCode = "305114"
        return model
    }

    /// The code in German by day with a hint: "Codes stimmen überein" is
    /// the longest label of the two buttons (it gets smaller type).
    static func transferCodeGerman() -> ScreenModel {
        var model = ScreenModel(pairing: .connected(server: phone), clock: "18:05", hint: "Das Telefon hat dieses Gerät vergessen: neu koppeln",
                                theme: .day, locale: ScreenLocale(language: .german))
        model.transferCode = "082917"
        return model
    }

    /// An update arriving while the driver follows a route at night: the
    /// band under the music card; the navigation card keeps its size.
    static func transferOverCards() -> ScreenModel {
        var model = cardsNight()
        model.transfer = TransferBand(filename: "headunit-2026.11.hubundle",
                                      status: .receiving(bytes: 5_872_026, total: 13_500_416, bytesPerSecond: 36_412, etaSeconds: 210))
        return model
    }

    /// A headunit.conf just begun on the idle screen (no rate yet), by day.
    static func transferIdle() -> ScreenModel {
        var model = ScreenModel(pairing: .connected(server: phone), clock: "18:05", theme: .day)
        model.transfer = TransferBand(filename: "headunit.conf",
                                      status: .receiving(bytes: 180, total: 1500, bytesPerSecond: 0, etaSeconds: nil))
        return model
    }

    /// A file refused, in German, beside a hint: the outcome in the danger colour.
    static func transferRefusedGerman() -> ScreenModel {
        var model = cardsGerman()
        model.nowPlaying = music()
        model.transfer = TransferBand(filename: "notes.txt", status: .refused("only update bundles and headunit.conf are accepted"))
        return model
    }

    /// The bundle handed to the installer, on a navigation-only screen.
    static func transferInstalling() -> ScreenModel {
        var model = cardsNavigationOnly()
        model.transfer = TransferBand(filename: "headunit-2026.11.hubundle", status: .installing)
        return model
    }

    static func navigation(_ title: String = "350 m", _ message: String = "Turn left onto Market Street toward Union Square") -> NavigationInstruction {
        NavigationInstruction(title: title, message: message, app: "com.google.Maps")
    }

    static func music(playing: Bool = true) -> NowPlaying {
        NowPlaying(title: "Bohemian Rhapsody", artist: "Queen", album: "A Night at the Opera (2011 Remaster)",
                   elapsed: 83, duration: 355, playing: playing)
    }

    static func cardsNight() -> ScreenModel {
        ScreenModel(pairing: .connected(server: phone), clock: "21:17", dropped: [0, 0, 1, 0, 4, 0, 2],
                    navigation: navigation(), nowPlaying: music(), theme: .night)
    }

    static func cardsDay() -> ScreenModel {
        ScreenModel(pairing: .connected(server: phone), clock: "12:30",
                    navigation: NavigationInstruction(title: "In 0.5 mi", message: "At the roundabout, take the 2nd exit onto Main St",
                                                      app: "com.apple.Maps"),
                    nowPlaying: NowPlaying(title: "Clair de Lune", artist: "Claude Debussy", album: "Suite bergamasque",
                                           elapsed: 200, duration: 301, playing: false),
                    theme: .day)
    }

    static func cardsNavigationOnly() -> ScreenModel {
        ScreenModel(pairing: .connected(server: phone), clock: "7:02",
                    navigation: NavigationInstruction(title: "Arrive at destination", message: "1 Infinite Loop, Cupertino. Your destination is on the right",
                                                      app: "com.waze.iphone"))
    }

    static func cardsMusicOnlyWithHint() -> ScreenModel {
        ScreenModel(pairing: .connected(server: phone), clock: "7:02", dropped: [3],
                    hint: "Share System Notifications is off on the iPhone",
                    nowPlaying: NowPlaying(title: "Ein sehr langer Titel, der ganz sicher nicht auf eine einzige Zeile passt und gekürzt wird",
                                           artist: "坂本龍一", album: "Ünïcödé Àlbum", elapsed: 12, duration: 0, playing: true),
                    theme: .day)
    }

    /// The head unit's own words in German, a 12-hour clock and metric
    /// units (the phone said 0.5 mi); the instruction in German.
    static func cardsGerman() -> ScreenModel {
        let german = ScreenLocale(language: .german, clock: .hours12, units: .metric)
        return ScreenModel(pairing: .connected(server: phone), clock: "9:41 PM",
                           hint: german.text(.hintSharingOff),
                           navigation: NavigationInstruction(title: "In 0.5 mi", message: "Im Kreisverkehr die 3. Ausfahrt nehmen auf B27",
                                                             app: "com.google.Maps"),
                           theme: .night, locale: german)
    }

    static func idleRememberedGerman() -> ScreenModel {
        let s = PairingState.remembered(server: phone)
        return ScreenModel(pairing: s, clock: "18:05", theme: .day, actions: ScreenModel.defaultActions(for: s),
                           locale: ScreenLocale(language: .german))
    }

    static let all: [(String, ScreenModel)] = [
        ("idle-discover", idleDiscover()),
        ("idle-discovering", idleDiscovering()),
        ("idle-remembered", idleRemembered()),
        ("idle-connected-hint", idleConnectedHint()),
        ("pairing", pairing()),
        ("pairing-forgotten", pairingForgotten()),
        ("cards-night", cardsNight()),
        ("cards-day", cardsDay()),
        ("cards-navigation-only", cardsNavigationOnly()),
        ("cards-music-only-hint", cardsMusicOnlyWithHint()),
        ("cards-german", cardsGerman()),
        ("idle-remembered-german", idleRememberedGerman()),
        ("transfer-code", transferCode()),
        ("transfer-code-german", transferCodeGerman()),
        ("transfer-cards-night", transferOverCards()),
        ("transfer-idle-day", transferIdle()),
        ("transfer-refused-german", transferRefusedGerman()),
        ("transfer-installing", transferInstalling()),
    ]
}
