import Graphics
import Guidance
import ScreenValues

/// Draws `ScreenModel`s onto a canvas and redraws only what changed since
/// the previous model: a new distance repaints the distance box, a clock tick
/// the clock. A different screen kind, size, theme or hint strip repaints all.
public final class ScreenRenderer {
    public let fonts: Fonts
    private var last: ScreenModel?
    private var lastLayout: ScreenLayout?
    /// What the last renders drew, region by region.
    public private(set) var elements: [DrawnElement] = []
    /// Maneuver arrows in unit coordinates, built once each (per roundabout exit).
    private var maneuverIcons: [IconKey: Path] = [:]
    /// The last instruction read, and what it says: reading the text is
    /// done once per instruction, not per region and frame.
    private var summaryCache: (instruction: NavigationInstruction, locale: ScreenLocale, summary: NavigationSummary)?

    public init(fonts: Fonts) { self.fonts = fonts }

    /// Forgets the previous frame: the next render repaints everything
    /// (after the output was reopened, or the canvas replaced).
    public func invalidate() {
        last = nil
        lastLayout = nil
    }

    /// Draws `model` and returns the damaged area (also added to the
    /// canvas's damage).
    @discardableResult
    public func render(_ model: ScreenModel, on canvas: Canvas) -> Damage {
        let layout = ScreenLayout(model: model, size: canvas.size)
        let theme = Theme.of(model.theme)
        var damage = Damage()
        let savedClip = canvas.clip
        canvas.clip = canvas.bounds
        defer { canvas.clip = savedClip }

        guard let previous = last, lastLayout == layout, previous.theme == model.theme, previous.locale == model.locale else {
            elements.removeAll()
            canvas.clear(theme.background)
            drawAll(model, layout, theme, canvas)
            damage.add(canvas.bounds)
            canvas.addDamage(canvas.bounds)
            last = model
            lastLayout = layout
            return damage
        }

        func update(_ region: ScreenRegion, _ changed: Bool) {
            if changed { redraw(region, model, layout, theme, canvas, &damage) }
        }
        update(.state, previous.pairing != model.pairing)
        update(.counters, normalizedCounts(previous.dropped) != normalizedCounts(model.dropped))
        update(.clock, previous.clock != model.clock)
        switch layout.kind {
        case .cards:
            let a = navSummary(previous), b = navSummary(model)
            update(.navArrow, a?.maneuver != b?.maneuver || a?.roundaboutExit != b?.roundaboutExit || (a == nil) != (b == nil))
            update(.navDistance, a?.distance != b?.distance || a?.unit != b?.unit || (a == nil) != (b == nil))
            update(.navApp, a?.app != b?.app)
            update(.navText, a?.primary != b?.primary || a?.secondary != b?.secondary || (a == nil) != (b == nil))
            let p = previous.nowPlaying, n = model.nowPlaying
            update(.musicMeta, p?.title != n?.title || p?.artist != n?.artist || p?.album != n?.album || (p == nil) != (n == nil))
            update(.musicIcon, p?.playing != n?.playing)
            update(.musicProgress, progressKey(p, layout) != progressKey(n, layout))
            update(.hint, previous.hint != model.hint)
        case .idle:
            update(.idle, previous.pairing != model.pairing || previous.actions != model.actions || previous.hint != model.hint)
        case .pairing:
            update(.pairing, previous.passkey != model.passkey || previous.hint != model.hint || previous.pairing != model.pairing)
        }
        last = model
        canvas.damage.add(damage)
        return damage
    }

    private func navSummary(_ m: ScreenModel) -> NavigationSummary? {
        guard let n = m.navigation else { return nil }
        if let c = summaryCache, c.instruction == n, c.locale == m.locale { return c.summary }
        let s = NavigationSummary(n, locale: m.locale)
        summaryCache = (n, m.locale, s)
        return s
    }

    /// What the progress region shows: both times and the filled width.
    private func progressKey(_ n: NowPlaying?, _ layout: ScreenLayout) -> [Int] {
        guard let n = n else { return [-1] }
        let fill = Int(progressFraction(n) * Float(layout.musicProgress.width))
        return [Int(max(0, n.elapsed.isFinite ? n.elapsed : 0)), Int(max(0, n.duration.isFinite ? n.duration : 0)), fill]
    }

    private func progressFraction(_ n: NowPlaying) -> Float {
        guard n.duration.isFinite, n.elapsed.isFinite, n.duration > 0 else { return 0 }
        return Float(max(0, min(1, n.elapsed / n.duration)))
    }

    // MARK: full frame

    private func drawAll(_ model: ScreenModel, _ layout: ScreenLayout, _ theme: Theme, _ canvas: Canvas) {
        var ignored = Damage()
        redraw(.state, model, layout, theme, canvas, &ignored, clear: false)
        redraw(.counters, model, layout, theme, canvas, &ignored, clear: false)
        redraw(.clock, model, layout, theme, canvas, &ignored, clear: false)
        switch layout.kind {
        case .cards:
            canvas.fillRoundedRect(layout.navCard, radius: layout.cardRadius, theme.surface)
            canvas.fillRoundedRect(layout.musicCard, radius: layout.cardRadius, theme.surface)
            for r in [ScreenRegion.navArrow, .navDistance, .navApp, .navText, .musicMeta, .musicIcon, .musicProgress, .hint] {
                redraw(r, model, layout, theme, canvas, &ignored, clear: false)
            }
        case .idle:
            redraw(.idle, model, layout, theme, canvas, &ignored, clear: false)
        case .pairing:
            canvas.fillRoundedRect(layout.pairingCard, radius: layout.cardRadius, theme.surface)
            redraw(.pairing, model, layout, theme, canvas, &ignored, clear: false)
        }
    }

    private struct IconKey: Hashable {
        var maneuver: Maneuver
        var exit: Int?
    }

    private func maneuverIcon(_ m: Maneuver, _ exit: Int?) -> Path {
        let key = IconKey(maneuver: m, exit: exit)
        if let p = maneuverIcons[key] { return p }
        let p = Icons.maneuver(m, exit: exit)
        maneuverIcons[key] = p
        return p
    }

    // MARK: regions

    static func background(of region: ScreenRegion, _ theme: Theme) -> Color {
        switch region {
        case .state, .counters, .clock, .idle, .hint: return theme.background
        default: return theme.surface
        }
    }

    /// Clears a region to its background and draws its content inside it.
    /// `clear: false` when the background under the region is already
    /// fresh (a full frame).
    private func redraw(_ region: ScreenRegion, _ model: ScreenModel, _ layout: ScreenLayout, _ theme: Theme,
                        _ canvas: Canvas, _ damage: inout Damage, clear: Bool = true) {
        let r = layout.rect(of: region)
        if r.isEmpty { return }
        elements.removeAll { $0.region == region }
        canvas.withClip(r) {
            if clear { canvas.fill(r, ScreenRenderer.background(of: region, theme)) }
            let d = RegionPainter(fonts: fonts, canvas: canvas, layout: layout, theme: theme, region: region, box: r,
                                  summary: navSummary(model), maneuverIcon: maneuverIcon)
            d.paint(model)
            elements.append(contentsOf: d.drawn)
        }
        damage.add(r)
    }
}

/// Draws the content of one region; records every element it draws.
private final class RegionPainter {
    let fonts: Fonts
    let canvas: Canvas
    let layout: ScreenLayout
    let theme: Theme
    let region: ScreenRegion
    let box: Rect
    let summary: NavigationSummary?
    let maneuverIcon: (Maneuver, Int?) -> Path
    var drawn: [DrawnElement] = []

    init(fonts: Fonts, canvas: Canvas, layout: ScreenLayout, theme: Theme, region: ScreenRegion, box: Rect,
         summary: NavigationSummary?, maneuverIcon: @escaping (Maneuver, Int?) -> Path) {
        self.fonts = fonts; self.canvas = canvas; self.layout = layout; self.theme = theme
        self.region = region; self.box = box; self.summary = summary; self.maneuverIcon = maneuverIcon
    }

    func px(_ v: Float) -> Int { layout.px(v) }

    func record(_ name: String, _ text: String, _ box: Rect, _ ink: Rect) {
        drawn.append(DrawnElement(region: region, name: name, text: text, box: box, ink: ink))
    }

    /// Text in `rect` (wrapping), recorded under `name`. Returns the result.
    @discardableResult
    func text(_ name: String, _ s: String, in rect: Rect, _ style: TextStyle) -> TextResult {
        let res = fonts.draw(s, in: rect, style: style, on: canvas)
        record(name, s, rect, res.ink)
        return res
    }

    /// One line vertically centred on capitals in `rect`.
    @discardableResult
    func centredLine(_ name: String, _ s: String, in rect: Rect, size: Int, weight: FontWeight, color: Color,
                     alignment: TextAlignment = .left) -> TextResult {
        let cap = fonts.capHeight(size: size, weight: weight)
        let asc = fonts.ascent(size: size, weight: weight)
        let baseline = rect.y + (rect.height + cap) / 2
        let style = TextStyle(size: size, weight: weight, color: color, alignment: alignment)
        let res = fonts.draw(s, in: Rect(x: rect.x, y: baseline - asc, width: rect.width, height: rect.height), style: style, on: canvas)
        record(name, s, rect, res.ink)
        return res
    }

    func icon(_ name: String, _ path: Path, in rect: Rect, color: Color) {
        canvas.drawIcon(path, in: rect, color: color)
        record(name, "", rect, rect.intersection(canvas.clip))
    }

    func paint(_ model: ScreenModel) {
        switch region {
        case .state: paintState(model)
        case .counters: paintCounters(model)
        case .clock:
            centredLine("clock", model.clock, in: box, size: px(26), weight: .bold, color: theme.text, alignment: .right)
        case .navArrow, .navDistance, .navApp, .navText: paintNavigation(model)
        case .musicMeta, .musicIcon, .musicProgress: paintMusic(model)
        case .hint: paintHintStrip(model)
        case .idle: paintIdle(model)
        case .pairing: paintPairing(model)
        }
    }

    private func paintState(_ model: ScreenModel) {
        let dotColor: Color
        switch model.pairing {
        case .connected: dotColor = theme.good
        case .discovering, .connecting: dotColor = theme.warn
        case .discover, .remembered: dotColor = theme.secondary
        }
        let r = Float(px(7))
        let dot = Rect(x: box.x, y: box.midY - Int(r), width: 2 * Int(r), height: 2 * Int(r))
        canvas.fillCircle(center: PointF(Float(dot.x) + r, Float(box.midY)), radius: r, dotColor)
        record("state-dot", "", dot, dot)
        let tx = dot.maxX + px(12)
        centredLine("state", model.locale.state(model.pairing), in: Rect(x: tx, y: box.y, width: box.maxX - tx, height: box.height),
                    size: px(20), weight: .bold, color: theme.text)
    }

    private func paintCounters(_ model: ScreenModel) {
        let h = px(32)
        let y = box.midY - h / 2
        let iconS = px(18)
        let size = px(18)
        var right = box.maxX
        for category in NotificationCategory.allCases {
            let i = category.rawValue
            guard i < model.dropped.count, model.dropped[i] > 0 else { continue }
            let label = model.dropped[i] > 99 ? "99+" : "\(model.dropped[i])"
            let tw = fonts.measure(label, size: size, weight: .bold)
            let w = px(10) + iconS + px(6) + tw + px(12)
            if right - w < box.x { break }
            let pill = Rect(x: right - w, y: y, width: w, height: h)
            canvas.fillRoundedRect(pill, radius: Float(h) / 2, theme.raised)
            let iconColor = category == .missedCall ? theme.danger : theme.secondary
            canvas.drawIcon(Icons.category(category), in: Rect(x: pill.x + px(10), y: pill.midY - iconS / 2, width: iconS, height: iconS),
                            color: iconColor)
            let textBox = Rect(x: pill.x + px(10) + iconS + px(6), y: pill.y, width: tw + px(2), height: h)
            let cap = fonts.capHeight(size: size, weight: .bold)
            let res = fonts.draw(label, x: textBox.x, baseline: pill.y + (h + cap) / 2, size: size, weight: .bold,
                                 color: theme.text, on: canvas)
            record("dropped-\(i)", label, pill, pill.union(res.ink))
            right = pill.x - px(8)
        }
    }

    private func paintNavigation(_ model: ScreenModel) {
        switch region {
        case .navArrow:
            let tileColor = summary == nil ? theme.raised : theme.accent
            canvas.fillRoundedRect(box, radius: Float(px(16)), tileColor)
            let inset = box.width * 14 / 100
            let iconBox = box.insetBy(dx: inset, dy: inset)
            let maneuver = summary?.maneuver ?? .neutral
            canvas.drawIcon(maneuverIcon(maneuver, summary?.roundaboutExit), in: iconBox, color: summary == nil ? theme.secondary : theme.onAccent)
            record("maneuver", "", box, box)
        case .navDistance:
            guard let s = summary else {
                centredLine("distance", model.locale.text(.noRoute), in: box, size: px(40), weight: .bold, color: theme.secondary)
                return
            }
            if s.distance.isEmpty {
                // No distance (an arrival, a bare instruction): name the maneuver instead.
                if let label = model.locale.label(s.maneuver) {
                    centredLine("maneuver-label", label, in: box, size: px(44), weight: .bold, color: theme.text)
                }
                return
            }
            // Number big, unit smaller, both on one baseline.
            var big = px(74)
            var small = big * 45 / 100
            let gap = px(8)
            let total = fonts.measure(s.distance, size: big, weight: .bold) + gap + fonts.measure(s.unit, size: small, weight: .bold)
            if total > box.width {
                big = max(8, big * box.width / total)
                small = max(6, big * 45 / 100)
            }
            let cap = fonts.capHeight(size: big, weight: .bold)
            let baseline = box.y + (box.height + cap) / 2
            let n = fonts.draw(s.distance, x: box.x, baseline: baseline, size: big, weight: .bold, color: theme.text,
                               maxWidth: box.width, on: canvas)
            record("distance", s.distance, box, n.ink)
            let ux = box.x + n.width + gap
            let u = fonts.draw(s.unit, x: ux, baseline: baseline, size: small, weight: .bold, color: theme.secondary,
                               maxWidth: max(1, box.maxX - ux), on: canvas)
            record("unit", s.unit, box, u.ink)
        case .navApp:
            guard let s = summary, !s.app.isEmpty else { return }
            text("app", s.app, in: box, TextStyle(size: px(19), color: theme.secondary))
        default:
            guard let s = summary else {
                text("primary", model.locale.text(.startRoute), in: box,
                     TextStyle(size: px(24), color: theme.secondary, maxLines: 2))
                return
            }
            let primary = TextStyle(size: px(30), weight: .bold, color: theme.text, maxLines: 3, lineHeight: 1.18)
            var y = box.y
            if !s.primary.isEmpty {
                let res = text("primary", s.primary, in: Rect(x: box.x, y: y, width: box.width, height: box.maxY - y), primary)
                y += res.lines * primary.lineAdvance + px(6)
            }
            let secondarySize = px(22)
            var style = TextStyle(size: secondarySize, color: theme.secondary, lineHeight: 1.25)
            let lineH = style.lineAdvance
            style.maxLines = max(0, (box.maxY - y - fonts.descent(size: secondarySize) + lineH - fonts.ascent(size: secondarySize)) / lineH)
            if !s.secondary.isEmpty && style.maxLines > 0 {
                text("secondary", s.secondary, in: Rect(x: box.x, y: y, width: box.width, height: box.maxY - y), style)
            }
        }
    }

    private func paintMusic(_ model: ScreenModel) {
        let n = model.nowPlaying
        switch region {
        case .musicMeta:
            guard let n = n else {
                text("title", model.locale.text(.nothingPlaying), in: box,
                     TextStyle(size: px(28), weight: .bold, color: theme.secondary, maxLines: 2))
                return
            }
            let title = TextStyle(size: px(30), weight: .bold, color: theme.text, maxLines: 3, lineHeight: 1.18)
            var y = box.y
            let res = text("title", n.title.isEmpty ? model.locale.text(.unknownTitle) : n.title, in: Rect(x: box.x, y: y, width: box.width, height: box.maxY - y), title)
            y += res.lines * title.lineAdvance + px(8)
            if !n.artist.isEmpty && y + px(22) <= box.maxY {
                let artist = TextStyle(size: px(23), color: theme.text)
                text("artist", n.artist, in: Rect(x: box.x, y: y, width: box.width, height: artist.lineAdvance), artist)
                y += artist.lineAdvance + px(4)
            }
            if !n.album.isEmpty && y + px(20) <= box.maxY {
                let album = TextStyle(size: px(20), color: theme.secondary)
                text("album", n.album, in: Rect(x: box.x, y: y, width: box.width, height: album.lineAdvance), album)
            }
        case .musicIcon:
            guard n != nil else { return }
            let playing = n?.playing ?? false
            let r = Float(box.width) / 2
            canvas.fillCircle(center: PointF(Float(box.x) + r, Float(box.y) + r), radius: r, playing ? theme.accent : theme.raised)
            let inner = box.insetBy(dx: box.width / 5, dy: box.height / 5)
            canvas.drawIcon(playing ? Icons.play() : Icons.pause(), in: inner, color: playing ? theme.onAccent : theme.text)
            record(playing ? "playing" : "paused", "", box, box)
        default:
            guard let n = n else { return }
            let barH = px(8)
            let bar = Rect(x: box.x, y: box.y + px(12), width: box.width, height: barH)
            canvas.fillRoundedRect(bar, radius: Float(barH) / 2, theme.track)
            record("progress-track", "", bar, bar)
            let fraction: Float = (n.duration.isFinite && n.elapsed.isFinite && n.duration > 0)
                ? Float(max(0, min(1, n.elapsed / n.duration))) : 0
            let fillW = Int(fraction * Float(bar.width))
            if fillW > 0 {
                canvas.fillRoundedRect(Rect(x: bar.x, y: bar.y, width: max(fillW, barH), height: barH), radius: Float(barH) / 2, theme.accent)
            }
            let size = px(19)
            let times = Rect(x: box.x, y: bar.maxY + px(6), width: box.width, height: box.maxY - bar.maxY - px(6))
            text("elapsed", formatDuration(n.elapsed), in: times, TextStyle(size: size, color: theme.secondary))
            if n.duration > 0 {
                text("duration", formatDuration(n.duration), in: times, TextStyle(size: size, color: theme.secondary, alignment: .right))
            }
        }
    }

    private func paintHintStrip(_ model: ScreenModel) {
        guard let hint = model.hint else { return }
        canvas.fillRoundedRect(box, radius: Float(box.height) / 2, theme.surface)
        record("hint-strip", "", box, box)
        let r = Float(px(7))
        canvas.fillCircle(center: PointF(Float(box.x + px(22)), Float(box.midY)), radius: r, theme.warn)
        let tx = box.x + px(40)
        centredLine("hint", hint, in: Rect(x: tx, y: box.y, width: box.maxX - px(20) - tx, height: box.height),
                    size: px(20), weight: .regular, color: theme.text)
    }

    private func paintIdle(_ model: ScreenModel) {
        let state = model.pairing
        let emblemColor = state.isConnected ? theme.good : theme.accent
        icon("emblem", Icons.phoneLink(), in: layout.idleIcon, color: emblemColor)
        let labels = model.actions.map { model.locale.label($0, for: state) }
        if !layout.idleHeadline.isEmpty {
            text("headline", model.locale.state(state), in: layout.idleHeadline,
                 TextStyle(size: px(34), weight: .bold, color: theme.text, alignment: .center))
        }
        if let hint = model.hint, !layout.idleHint.isEmpty {
            text("hint", hint, in: layout.idleHint,
                 TextStyle(size: px(22), color: theme.warn, alignment: .center, maxLines: 2, lineHeight: 1.25))
        }
        for (i, r) in layout.buttons.enumerated() where i < model.actions.count {
            let action = model.actions[i]
            let bg: Color, fg: Color
            switch action {
            case .discover, .connect, .pairPhone: bg = theme.accent; fg = theme.onAccent
            case .disconnect: bg = theme.raised; fg = theme.text
            case .unpair: bg = theme.raised; fg = theme.danger
            }
            canvas.fillRoundedRect(r, radius: Float(px(16)), bg)
            let inner = r.insetBy(dx: px(16), dy: 0)
            // A longer label (another language) gets smaller type before it is cut short.
            var size = px(24)
            let width = fonts.measure(labels[i], size: size, weight: .bold)
            if width > inner.width { size = max(px(17), size * inner.width / width) }
            let res = fonts.draw(labels[i], in: Rect(x: inner.x, y: r.y + (r.height + fonts.capHeight(size: size, weight: .bold)) / 2
                                                     - fonts.ascent(size: size, weight: .bold), width: inner.width, height: r.height),
                                 style: TextStyle(size: size, weight: .bold, color: fg, alignment: .center), on: canvas)
            record("button-\(i)", labels[i], r, r.union(res.ink))
        }
    }

    private func paintPairing(_ model: ScreenModel) {
        text("pairing-title", model.locale.text(.enterPasskey), in: layout.pairingTitle,
             TextStyle(size: px(28), weight: .bold, color: theme.text, alignment: .center))
        let key = model.passkey ?? ""
        // Two groups of three digits with a gap, as large as fits.
        let b = Array(key.utf8)
        let first = String(decoding: b.prefix(3), as: UTF8.self)
        let second = String(decoding: b.dropFirst(3), as: UTF8.self)
        let box = layout.passkey
        var size = Int(Float(box.height) * 0.78 / 0.73)
        let measured = fonts.measure(first, size: size, weight: .bold) + fonts.measure(second, size: size, weight: .bold)
        let gapFraction: Float = 0.35
        let total = measured + Int(Float(size) * gapFraction)
        if total > box.width { size = size * box.width / total }
        let w1 = fonts.measure(first, size: size, weight: .bold)
        let w2 = fonts.measure(second, size: size, weight: .bold)
        let gap = second.isEmpty ? 0 : Int(Float(size) * gapFraction)
        var x = box.midX - (w1 + gap + w2) / 2
        let cap = fonts.capHeight(size: size, weight: .bold)
        let baseline = box.y + (box.height + cap) / 2
        let r1 = fonts.draw(first, x: x, baseline: baseline, size: size, weight: .bold, color: theme.text, on: canvas)
        x += w1 + gap
        let r2 = fonts.draw(second, x: x, baseline: baseline, size: size, weight: .bold, color: theme.text, on: canvas)
        record("passkey", key, box, r1.ink.union(r2.ink))
        if let hint = model.hint {
            text("hint", hint, in: layout.pairingHint,
                 TextStyle(size: px(22), color: theme.warn, alignment: .center, maxLines: 2, lineHeight: 1.25))
        } else if let name = model.pairing.server {
            text("hint", model.locale.text(.pairingWith, name), in: layout.pairingHint,
                 TextStyle(size: px(22), color: theme.secondary, alignment: .center))
        }
    }
}
