import Testing
import Guidance
@testable import Screens
@testable import ScreenValues

@Suite struct ScreenLocaleTests {
    /// Every language has every sentence: a key added without its
    /// translations fails here.
    @Test(arguments: ScreenLanguage.allCases.filter { $0 != .english }.map { $0.code })
    func everyLanguageHasEveryString(_ code: String) throws {
        let language = try #require(ScreenLanguage(code: code))
        let table = language.table
        for key in ScreenTextKey.allCases {
            let text = try #require(table[key], "\(code) has no \(key)")
            #expect(!text.isEmpty, "\(code): \(key) is empty")
            // The phone's name goes where the English puts it, once.
            let wanted = key.english.utf8.elementsEqual(ScreenLocale.fill(key.english, "").utf8) ? 0 : 1
            let holes = text.unicodeScalars.count - ScreenLocale.fill(text, "").unicodeScalars.count
            #expect(holes == 2 * wanted, "\(code): \(key) '\(text)'")
        }
        #expect(table.count == ScreenTextKey.allCases.count, "\(code): keys that do not exist")
    }

    @Test func atLeastTheFourteenLanguages() {
        #expect(ScreenLanguage.allCases.count >= 14)
        #expect(Set(ScreenLanguage.allCases.map { $0.code }).count == ScreenLanguage.allCases.count)
        for l in ScreenLanguage.allCases { #expect(ScreenLanguage(code: l.code) == l) }
    }

    /// English is the original design's wording (docs/PROTOCOL.md §1), unchanged.
    @Test func englishIsTheProtocolWording() {
        let en = ScreenLocale()
        let states: [PairingState] = [.discover, .discovering, .connecting(server: nil), .connecting(server: "Anna"),
                                      .connected(server: "Anna"), .remembered(server: "Anna")]
        for s in states { #expect(en.state(s) == s.text) }
        #expect(en.state(.discover) == "Discover Server App")
        #expect(en.state(.discovering) == "Discovering...")
        #expect(en.state(.connected(server: "Anna")) == "Connected to server: Anna")
        #expect(en.state(.remembered(server: "Anna")) == "Connect to Anna")
        for a: ScreenAction in [.discover, .connect, .disconnect, .unpair] {
            #expect(en.label(a, for: .remembered(server: "Anna")) == a.label(for: .remembered(server: "Anna")))
        }
        #expect(en.text(.hintSharingOff) == "Share System Notifications is off on the iPhone")
    }

    @Test func otherLanguages() {
        let de = ScreenLocale(language: .german)
        #expect(de.state(.remembered(server: "Annas iPhone")) == "Mit Annas iPhone verbinden")
        #expect(de.label(.connect, for: .remembered(server: "Anna")) == de.state(.remembered(server: "Anna")))
        #expect(de.text(.hintPhoneForgot) == "Das Telefon hat dieses Gerät vergessen: neu koppeln")
        let ja = ScreenLocale(language: .japanese)
        #expect(ja.state(.connected(server: "花子のiPhone")) == "サーバーに接続済み: 花子のiPhone")
        #expect(ja.label(.roundabout) == "ロータリー")
        #expect(ScreenLocale(language: .arabic).text(.unpair) == "إلغاء الاقتران")
    }

    @Test func clock() {
        let h24 = ScreenLocale()
        #expect(h24.clockText(minutesSinceMidnight: 21 * 60 + 7) == "21:07")
        #expect(h24.clockText(minutesSinceMidnight: 5) == "0:05")
        let h12 = ScreenLocale(clock: .hours12)
        #expect(h12.clockText(minutesSinceMidnight: 21 * 60 + 17) == "9:17 PM")
        #expect(h12.clockText(minutesSinceMidnight: 5) == "12:05 AM")
        #expect(h12.clockText(minutesSinceMidnight: 12 * 60) == "12:00 PM")
        #expect(ScreenLocale(language: .japanese, clock: .hours12).clockText(minutesSinceMidnight: 21 * 60 + 17) == "午後9:17")
        #expect(ScreenLocale(language: .spanish, clock: .hours12).clockText(minutesSinceMidnight: 9 * 60) == "9:00 a. m.")
    }

    @Test func units() {
        func shown(_ l: ScreenLocale, _ m: Int) -> String { l.distance(metres: m).map { $0.value + " " + $0.unit } ?? "phone" }
        #expect(shown(ScreenLocale(), 350) == "phone")
        let metric = ScreenLocale(units: .metric)
        #expect(shown(metric, 352) == "350 m" && shown(metric, 42) == "42 m")
        #expect(shown(metric, 1509) == "1.5 km" && shown(metric, 2000) == "2 km" && shown(metric, 12_400) == "12 km")
        #expect(shown(ScreenLocale(language: .german, units: .metric), 1509) == "1,5 km")
        let imperial = ScreenLocale(units: .imperial)
        #expect(shown(imperial, 152) == "500 ft")
        #expect(shown(imperial, 805) == "0.5 mi" && shown(imperial, 1609) == "1 mi")
        // On the card: the phone's 500 m in imperial.
        let s = NavigationSummary(NavigationInstruction(title: "In 500 m", message: "Turn left", app: "x"), locale: imperial)
        #expect(s.distance == "0.3" && s.unit == "mi")
    }
}
