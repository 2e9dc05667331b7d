import Testing
import Graphics
@testable import Screens
import ScreenValues

/// Checks that text really is drawn where the layout says: every text
/// element left visible pixels inside its box, and no pixel of a region
/// outside its recorded elements differs from the region's background.
enum TextPlacement {
    static func differs(_ canvas: Canvas, _ r: Rect, from bg: Color) -> Int {
        var n = 0
        let c = r.intersection(canvas.bounds)
        if c.isEmpty { return 0 }
        for y in c.y..<c.maxY {
            for x in c.x..<c.maxX where canvas.pixels[y * canvas.width + x] != bg.pixel { n += 1 }
        }
        return n
    }

    static func verify(renderer: ScreenRenderer, canvas: Canvas, model: ScreenModel, label: String) {
        let layout = ScreenLayout(model: model, size: canvas.size)
        let theme = Theme.of(model.theme)
        let elements = renderer.elements
        #expect(!elements.isEmpty, "\(label): nothing recorded")

        for e in elements where !e.text.isEmpty {
            let region = layout.rect(of: e.region)
            #expect(!e.ink.isEmpty, "\(label): \(e.name) '\(e.text)' drew nothing")
            #expect(region.contains(e.ink), "\(label): \(e.name) ink \(e.ink) leaves its region \(region)")
            #expect(e.box.insetBy(dx: -2, dy: -2).contains(e.ink), "\(label): \(e.name) ink \(e.ink) outside its box \(e.box)")
            // Glyphs mean pixels of another colour, a fair share of the ink box.
            let bg = ScreenRenderer.background(of: e.region, theme)
            let painted = differs(canvas, e.ink, from: bg)
            #expect(painted * 20 >= e.ink.area, "\(label): \(e.name) ink box holds only \(painted) drawn pixels")
        }

        // Nothing stray: outside the recorded elements each region is plain background.
        var regions: [ScreenRegion] = []
        for e in elements where !regions.contains(e.region) { regions.append(e.region) }
        for region in regions {
            let r = layout.rect(of: region)
            let bg = ScreenRenderer.background(of: region, theme)
            let covered = elements.filter { $0.region == region }.map { $0.ink.union($0.box.intersection(r)).insetBy(dx: -1, dy: -1) }
            var stray = 0
            for y in r.y..<r.maxY {
                for x in r.x..<r.maxX {
                    let p = Point(x: x, y: y)
                    if covered.contains(where: { $0.contains(p) }) { continue }
                    if canvas.pixels[y * canvas.width + x] != bg.pixel { stray += 1 }
                }
            }
            #expect(stray == 0, "\(label): \(stray) stray pixels in region \(region)")
        }

        // The status bar always shows the state words and the clock.
        let state = elements.first { $0.name == "state" }
        #expect(state?.text == model.locale.state(model.pairing), "\(label): state text")
        if let s = state { #expect(layout.statusBar.contains(s.ink)) }
        if !model.clock.isEmpty {
            let clock = elements.first { $0.name == "clock" }
            #expect(clock != nil, "\(label): no clock")
            if let c = clock {
                #expect(c.ink.maxX >= layout.clock.maxX - layout.px(4), "\(label): clock not right-aligned: \(c.ink)")
            }
        }

        switch layout.kind {
        case .pairing:
            let key = elements.first { $0.name == "passkey" }
            #expect(key?.text == model.passkey ?? model.transferCode)
            if let k = key {
                #expect(abs(k.ink.midX - layout.passkey.midX) <= canvas.width / 50, "\(label): passkey off centre \(k.ink)")
                #expect(k.ink.height * 10 >= layout.passkey.height * 5, "\(label): passkey not huge: \(k.ink)")
            }
        case .cards:
            if let n = model.navigation {
                let s = NavigationSummary(n, locale: model.locale)
                if !s.distance.isEmpty {
                    let d = elements.first { $0.name == "distance" }
                    #expect(d?.text == s.distance, "\(label): distance")
                    let u = elements.first { $0.name == "unit" }
                    #expect(u?.text == s.unit)
                    if let d = d, let u = u {
                        // Number and unit share one baseline: their bottoms meet.
                        #expect(abs(d.ink.maxY - u.ink.maxY) <= max(1, d.ink.height / 30), "\(label): baselines \(d.ink) \(u.ink)")
                        #expect(u.ink.x >= d.ink.maxX, "\(label): unit overlaps number")
                    }
                }
                let p = elements.first { $0.name == "primary" }
                #expect(p != nil && layout.navText.contains(p!.ink))
            }
            if let m = model.nowPlaying {
                let t = elements.first { $0.name == "title" }
                #expect(t != nil && layout.musicMeta.contains(t!.ink), "\(label): title")
                #expect(elements.contains { $0.name == (m.playing ? "playing" : "paused") })
            }
        case .idle:
            break
        }
        // The idle screen's buttons, or "Codes match" / "Cancel" under a
        // transfer's code: each drawn with its label, and a tap on it finds it.
        for (i, action) in model.buttonActions.enumerated() {
            let b = elements.first { $0.name == "button-\(i)" }
            #expect(b?.text == model.locale.label(action, for: model.pairing), "\(label): button \(i)")
            if let b = b {
                #expect(ScreenLayout.hitTest(Point(x: b.box.midX, y: b.box.midY), model: model, size: canvas.size) == action)
            }
        }
    }
}
