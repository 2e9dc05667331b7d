import Testing
import Graphics
import ScreenValues
@testable import Screens

/// Changing any field a region draws damages that region: every field of
/// the model is changed alone, on every kind of screen, and the partial
/// redraw must leave the same pixels as drawing the new model from scratch,
/// with every pixel that changed inside the damage. A field a region draws
/// but the damage does not compare leaves stale pixels and fails here.
@Suite(.serialized) struct RegionDamageTests {
    typealias Change = (name: String, apply: (inout ScreenModel) -> Void)

    static let changes: [Change] = [
        ("pairing state", { m in
            switch m.pairing {
            case .connected: m.pairing = .connected(server: "Bob's iPhone")
            default: m.pairing = .remembered(server: "Bob's iPhone")
            }
        }),
        ("clock", { $0.clock = "23:59" }),
        ("a dropped count", { m in
            if let i = m.dropped.firstIndex(where: { $0 > 0 }) { m.dropped[i] += 7 } else { m.countDropped(category: 2) }
        }),
        ("a new dropped category", { $0.countDropped(category: 6) }),
        ("passkey digits", { m in if m.passkey != nil { m.passkey = "918273" } }),
        ("passkey shown", { $0.passkey = $0.passkey == nil ? "123456" : nil }),
        ("transfer code digits", { m in if m.transferCode != nil { m.transferCode = "771204" } }),
        ("transfer code shown", { $0.transferCode = $0.transferCode == nil ? "305114" : nil }),
        ("hint text", { m in if m.hint != nil { m.hint = "Bluetooth is off on the iPhone" } }),
        ("hint shown", { $0.hint = $0.hint == nil ? "Bluetooth is off on the iPhone" : nil }),
        ("instruction distance", { $0.navigation?.title = "1.2 km" }),
        ("instruction maneuver, no distance", { $0.navigation?.title = "Turn right" }),
        ("instruction message", { $0.navigation?.message = "Continue onto Geary Boulevard" }),
        ("instruction app", { $0.navigation?.app = "com.waze.iphone" }),
        ("instruction gone", { $0.navigation = nil }),
        ("instruction new", { $0.navigation = NavigationInstruction(title: "2 km", message: "Keep left", app: "com.apple.Maps") }),
        ("track title", { $0.nowPlaying?.title = "Another One Bites the Dust" }),
        ("track title empty", { $0.nowPlaying?.title = "" }),
        ("track artist", { $0.nowPlaying?.artist = "Freddie Mercury" }),
        ("track album", { $0.nowPlaying?.album = "The Game" }),
        ("track elapsed", { $0.nowPlaying?.elapsed += 61 }),
        ("track duration", { $0.nowPlaying?.duration = 600 }),
        ("track playing", { $0.nowPlaying?.playing.toggle() }),
        ("track gone", { $0.nowPlaying = nil }),
        ("track new", { $0.nowPlaying = NowPlaying(title: "Ode", artist: "", album: "", elapsed: 1, duration: 0, playing: false) }),
        ("theme", { $0.theme = $0.theme == .day ? .night : .day }),
        ("actions", { $0.actions = $0.actions.isEmpty ? [.pairPhone] : Array($0.actions.dropLast()) }),
        ("action", { m in if !m.actions.isEmpty { m.actions[0] = .pairPhone } }),
        ("language", { $0.locale.language = $0.locale.language == .german ? .english : .german }),
        ("clock format", { $0.locale.clock = $0.locale.clock == .hours12 ? .hours24 : .hours12 }),
        ("units", { $0.locale.units = $0.locale.units == .metric ? .imperial : .metric }),
    ]

    /// A bare instruction: no distance, so the distance box names the maneuver.
    static func cardsBareInstruction() -> ScreenModel {
        var m = Fixtures.cardsNight()
        m.navigation = Fixtures.navigation("Turn left", "Market Street")
        return m
    }

    static let starts: [(String, ScreenModel)] = Fixtures.all + [("cards-bare-instruction", cardsBareInstruction())]

    @Test func everyFieldARegionDrawsDamagesIt() throws {
        let fonts = try TestFonts.load()
        // Smaller than the usual 800x480 to keep the 300-odd redraws quick;
        // every region is still there.
        let size = Size(width: 640, height: 384)
        var tried = 0
        for (startName, start) in Self.starts {
            let canvas = Canvas(size: size)
            let renderer = ScreenRenderer(fonts: fonts)
            for change in Self.changes {
                var after = start
                change.apply(&after)
                if after == start { continue }
                tried += 1
                renderer.render(start, on: canvas)
                let before = canvas.pixels
                let damage = renderer.render(after, on: canvas)
                let fresh = Canvas(size: size)
                ScreenRenderer(fonts: fonts).render(after, on: fresh)
                let stale = Self.differing(canvas.pixels, fresh.pixels, size) { _ in true }
                #expect(stale.count == 0, "\(startName), \(change.name): \(stale.count) stale pixels, first at \(stale.first)")
                let outside = Self.differing(before, canvas.pixels, size) { p in !damage.rects.contains { $0.contains(p) } }
                #expect(outside.count == 0, "\(startName), \(change.name): \(outside.count) changed pixels outside the damage, first at \(outside.first)")
            }
        }
        #expect(tried > 200)
    }

    /// The renderer keeps open only the faces of text on screen: a Japanese
    /// track opens the CJK font, a distance change elsewhere keeps it, the
    /// next (Latin) track closes it.
    @Test func aScriptFontClosesWhenItsTextLeavesTheScreen() throws {
        let fonts = try TestFonts.loadWithScripts()
        let cjk = try #require((2..<fonts.faceCount).first { fonts.facePath($0).hasSuffix("wqy-microhei.ttc") })
        let canvas = Canvas(size: Size(width: 800, height: 480))
        let renderer = ScreenRenderer(fonts: fonts)
        var model = Fixtures.cardsNight()
        renderer.render(model, on: canvas)
        #expect(fonts.openFaceCount == 2)
        model.nowPlaying?.title = "戦場のメリークリスマス"
        renderer.render(model, on: canvas)
        #expect(fonts.isOpen(cjk))
        model.navigation?.title = "200 m"
        renderer.render(model, on: canvas)
        #expect(fonts.isOpen(cjk))
        model.nowPlaying?.title = "Forbidden Colours"
        renderer.render(model, on: canvas)
        #expect(!fonts.isOpen(cjk))
        #expect(fonts.openFaceCount == 2)
    }

    /// How many pixels differ between `a` and `b` where `counts` says so, and the first of them.
    static func differing(_ a: [UInt32], _ b: [UInt32], _ size: Size, where counts: (Point) -> Bool) -> (count: Int, first: Point?) {
        var count = 0
        var first: Point?
        a.withUnsafeBufferPointer { pa in
            b.withUnsafeBufferPointer { pb in
                for i in 0..<min(pa.count, pb.count) where pa[i] != pb[i] {
                    let p = Point(x: i % size.width, y: i / size.width)
                    if counts(p) {
                        count += 1
                        if first == nil { first = p }
                    }
                }
            }
        }
        return (count, first)
    }
}
