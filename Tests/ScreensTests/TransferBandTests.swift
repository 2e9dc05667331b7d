import Testing
import Graphics
@testable import Screens
import ScreenValues

/// A GhostDrop transfer's band: where it goes (the navigation card keeps
/// its size), what it says, and that it is redrawn only when what it
/// shows changes.
@Suite struct TransferBandTests {
    static let sizes = [Size(width: 800, height: 480), Size(width: 1280, height: 720), Size(width: 480, height: 800)]

    static func receiving(_ bytes: Int64, rate: Int64 = 36_412, eta: Int64? = 210) -> TransferBand {
        TransferBand(filename: "headunit-2026.11.hubundle",
                     status: .receiving(bytes: bytes, total: 13_500_416, bytesPerSecond: rate, etaSeconds: eta))
    }

    /// The driver is driving: the next turn stays as large as without a
    /// transfer; the band takes its room from the music card.
    @Test func theNavigationCardKeepsItsSize() {
        for size in Self.sizes {
        for hint in [nil, "Share System Notifications is off on the iPhone"] {
            var model = Fixtures.cardsNight()
            model.hint = hint
            let without = ScreenLayout(model: model, size: size)
            model.transfer = Self.receiving(1_000_000)
            let with = ScreenLayout(model: model, size: size)
            #expect(with.navCard == without.navCard && with.navArrow == without.navArrow && with.navText == without.navText)
            #expect(!with.transferBand.isEmpty && !with.transferBand.intersects(with.navCard) && !with.transferBand.intersects(with.musicCard))
            #expect(with.main.contains(with.transferBand))
            if !with.hintStrip.isEmpty { #expect(!with.transferBand.intersects(with.hintStrip)) }
        }
        }
    }

    /// On the idle screen the band is along the bottom, below the buttons;
    /// over the code to compare there is none (that screen is the transfer's).
    @Test func idleAndCodeScreens() {
        let size = Size(width: 800, height: 480)
        var idle = Fixtures.idleRemembered()
        idle.transfer = Self.receiving(0)
        let layout = ScreenLayout(model: idle, size: size)
        #expect(!layout.transferBand.isEmpty)
        for button in layout.buttons { #expect(button.maxY <= layout.transferBand.y) }
        #expect(ScreenLayout.hitTest(Point(x: layout.buttons[0].midX, y: layout.buttons[0].midY), model: idle, size: size) == idle.actions[0])
        var code = Fixtures.transferCode()
        code.transfer = Self.receiving(0)
        #expect(ScreenLayout(model: code, size: size).transferBand.isEmpty)
    }

    @Test func whatTheBandSays() {
        let en = ScreenLocale(), de = ScreenLocale(language: .german)
        let t = RegionContent.transfer(Self.receiving(5_872_026), en, barWidth: 400)
        #expect(t.name == "headunit-2026.11.hubundle" && t.percent == "43%" && t.fill == 173)
        #expect(t.detail == "36 kB/s · 3:30 left")
        #expect(RegionContent.transfer(Self.receiving(5_872_026), de, barWidth: 400).detail == "36 kB/s · noch 3:30")
        #expect(de.rateText(bytesPerSecond: 4_250) == "4,3 kB/s")
        // No rate yet: no figures but the percent.
        let first = RegionContent.transfer(Self.receiving(180, rate: 0, eta: nil), en, barWidth: 400)
        #expect(first.percent == "0%" && first.detail == "")
        // 100% only once every byte is here.
        #expect(RegionContent.transfer(Self.receiving(13_500_415, rate: 1_250_000, eta: 1), en, barWidth: 400).percent == "99%")
        #expect(RegionContent.transfer(Self.receiving(13_500_415, rate: 1_250_000, eta: 1), en, barWidth: 400).detail
                == "1.3 MB/s · 0:01 left")
        #expect(en.rateText(bytesPerSecond: 850) == "850 B/s")
        let outcomes: [(TransferStatus, String, Bool)] = [
            (.received, "Received", true), (.installing, "Installing the update", true),
            (.installed, "Installed, restarting", true), (.refused("too large"), "Refused: too large", false),
            (.cancelled("Link lost"), "Cancelled: Link lost", false)]
        for (status, words, good) in outcomes {
            let o = RegionContent.transfer(TransferBand(filename: "a.conf", status: status), en, barWidth: 400)
            #expect(o.detail == words && o.good == good && o.percent == nil && o.fill == nil, "\(status)")
        }
    }

    /// Progress that does not change what is seen redraws nothing; a new
    /// percent redraws the band alone, never the navigation card.
    @Test func onlyTheBandIsRedrawnAndOnlyWhenItsFiguresChange() throws {
        let fonts = try TestFonts.load()
        let canvas = Canvas(size: Size(width: 800, height: 480))
        let renderer = ScreenRenderer(fonts: fonts)
        var model = Fixtures.cardsNight()
        model.transfer = Self.receiving(5_872_026)
        renderer.render(model, on: canvas)
        let layout = ScreenLayout(model: model, size: canvas.size)
        // 2 kB more: still 43%, the same rate and time left, the bar's pixel the same.
        model.transfer = Self.receiving(5_874_026)
        #expect(renderer.render(model, on: canvas).isEmpty)
        model.transfer = Self.receiving(6_000_000, eta: 207)
        let damage = renderer.render(model, on: canvas)
        #expect(!damage.isEmpty)
        #expect(damage.rects.allSatisfy { layout.transferBand.contains($0) }, "\(damage.rects)")
        TextPlacement.verify(renderer: renderer, canvas: canvas, model: model, label: "after progress")
    }
}
