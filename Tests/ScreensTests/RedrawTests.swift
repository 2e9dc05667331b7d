import Testing
import Graphics
@testable import Screens
import ScreenValues

@Suite(.serialized) struct RedrawTests {
    /// Renders `before` then `after` incrementally, and `after` from scratch;
    /// the pixels must match and the damage must be exactly `expected`.
    func incremental(_ before: ScreenModel, _ after: ScreenModel, size: Size = Size(width: 800, height: 480)) throws -> (Damage, Canvas, Canvas) {
        let fonts = try TestFonts.load()
        let canvas = Canvas(size: size)
        let renderer = ScreenRenderer(fonts: fonts)
        renderer.render(before, on: canvas)
        _ = canvas.takeDamage()
        let damage = renderer.render(after, on: canvas)
        let fresh = Canvas(size: size)
        ScreenRenderer(fonts: fonts).render(after, on: fresh)
        return (damage, canvas, fresh)
    }

    @Test func distanceChangeRedrawsOnlyTheDistance() throws {
        let before = Fixtures.cardsNight()
        var after = before
        after.navigation?.title = "300 m"
        let (damage, canvas, fresh) = try incremental(before, after)
        let layout = ScreenLayout(model: after, size: canvas.size)
        #expect(damage.rects == [layout.navDistance])
        #expect(canvas.damage.rects == [layout.navDistance])
        #expect(canvas.pixels == fresh.pixels)
    }

    @Test func clockTickRedrawsOnlyTheClock() throws {
        let before = Fixtures.cardsNight()
        var after = before
        after.clock = "21:18"
        let (damage, canvas, fresh) = try incremental(before, after)
        #expect(damage.rects == [ScreenLayout(model: after, size: canvas.size).clock])
        #expect(canvas.pixels == fresh.pixels)
    }

    @Test func progressTickRedrawsOnlyTheProgressBar() throws {
        let before = Fixtures.cardsNight()
        var after = before
        after.nowPlaying?.elapsed += 1
        let (damage, canvas, fresh) = try incremental(before, after)
        #expect(damage.rects == [ScreenLayout(model: after, size: canvas.size).musicProgress])
        #expect(canvas.pixels == fresh.pixels)
    }

    @Test func newTrackAndNewInstructionRedrawTheirRegions() throws {
        let before = Fixtures.cardsNight()
        var after = before
        after.nowPlaying = NowPlaying(title: "Under Pressure", artist: "Queen & David Bowie", album: "Hot Space",
                                      elapsed: 0, duration: 248, playing: true)
        after.navigation = Fixtures.navigation("200 m", "Turn right onto Geary Blvd")
        after.dropped[4] += 1
        let (damage, canvas, fresh) = try incremental(before, after)
        let l = ScreenLayout(model: after, size: canvas.size)
        for r in [l.navArrow, l.navDistance, l.navText, l.musicMeta, l.musicProgress, l.counters] {
            #expect(damage.rects.contains { $0.contains(r) }, "\(r) not redrawn")
        }
        #expect(!damage.rects.contains { $0.intersects(l.clock) })
        #expect(canvas.pixels == fresh.pixels)
    }

    @Test func sameModelDrawsNothingAndThemeChangeDrawsAll() throws {
        let m = Fixtures.cardsNight()
        let (none, _, _) = try incremental(m, m)
        #expect(none.isEmpty)
        var day = m
        day.theme = .day
        let (all, canvas, fresh) = try incremental(m, day)
        #expect(all.rects == [canvas.bounds])
        #expect(canvas.pixels == fresh.pixels)
    }

    @Test func idleAndPairingTransitionsRepaintCorrectly() throws {
        let (_, a, fa) = try incremental(Fixtures.idleDiscover(), Fixtures.pairing())
        #expect(a.pixels == fa.pixels)
        let (_, b, fb) = try incremental(Fixtures.pairing(), Fixtures.cardsNight())
        #expect(b.pixels == fb.pixels)
        var discovering = Fixtures.idleDiscover()
        discovering.pairing = .discovering
        discovering.actions = []
        let (_, c, fc) = try incremental(Fixtures.idleDiscover(), discovering)
        #expect(c.pixels == fc.pixels)
    }
}

@Suite struct LayoutTests {
    static let sizes = [Size(width: 800, height: 480), Size(width: 1024, height: 600), Size(width: 1280, height: 720),
                        Size(width: 1920, height: 1080), Size(width: 480, height: 800), Size(width: 1080, height: 1920)]

    @Test(arguments: sizes)
    func everythingFitsOnScreenAndTouchTargetsAreLarge(_ size: Size) {
        let screen = Rect(size: size)
        for (_, model) in Fixtures.all {
            let l = ScreenLayout(model: model, size: size)
            let regions: [ScreenRegion] = [.state, .clock, .navArrow, .navDistance, .navApp, .navText, .musicMeta, .musicIcon,
                                           .musicProgress, .hint, .idle, .pairing, .counters]
            for r in regions {
                let rect = l.rect(of: r)
                #expect(rect.isEmpty || screen.contains(rect), "\(size) \(r) \(rect)")
            }
            #expect(!l.navCard.intersects(l.musicCard))
            #expect(!l.stateText.intersects(l.clock) && !l.counters.intersects(l.clock))
            for b in l.buttons {
                #expect(screen.contains(b))
                #expect(b.height >= 64, "touch target too small: \(b)")
            }
        }
    }

    @Test func hitTestFindsTheActionsOnlyOnTheIdleScreen() {
        let size = Size(width: 800, height: 480)
        let model = Fixtures.idleRemembered()
        let l = ScreenLayout(model: model, size: size)
        #expect(l.buttons.count == 2)
        #expect(ScreenLayout.hitTest(Point(x: l.buttons[0].midX, y: l.buttons[0].midY), model: model, size: size) == .connect)
        #expect(ScreenLayout.hitTest(Point(x: l.buttons[1].x + 2, y: l.buttons[1].maxY - 2), model: model, size: size) == .unpair)
        #expect(ScreenLayout.hitTest(Point(x: 5, y: 5), model: model, size: size) == nil)
        #expect(ScreenLayout.hitTest(Point(x: 400, y: 300), model: Fixtures.cardsNight(), size: size) == nil)
        let discover = Fixtures.idleDiscover()
        let d = ScreenLayout(model: discover, size: size)
        #expect(ScreenLayout.hitTest(Point(x: d.buttons[0].midX, y: d.buttons[0].midY), model: discover, size: size) == .discover)
    }
}
