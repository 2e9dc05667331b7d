import Graphics
import Guidance
import ScreenValues

/// Draws `ScreenModel`s onto a canvas and redraws only what changed since
/// the previous model: each region's content is read from the model
/// (`RegionContent`) and a region is redrawn when its content differs from
/// what it shows, so a new distance repaints the distance box, a clock
/// tick the clock. A different screen kind, size, theme, locale or hint
/// strip repaints all. After each frame the fonts keep open only the faces
/// of the text on screen (`Fonts.closeFaces(except:)`).
public final class ScreenRenderer {
    public let fonts: Fonts
    /// What the whole screen was last drawn for: a change repaints all.
    private var frame: Frame?
    /// What each region of the last layout shows, and the faces it drew with.
    private var shown: [(region: ScreenRegion, content: RegionContent, faces: FaceSet)] = []
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
        frame = nil
    }

    private struct Frame: Equatable {
        var layout: ScreenLayout
        var theme: ThemeMode
        var locale: ScreenLocale
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
        let summary = layout.kind == .cards ? navSummary(model) : nil
        let now = Frame(layout: layout, theme: model.theme, locale: model.locale)

        if frame == now {
            for i in shown.indices {
                let content = RegionContent.of(shown[i].region, model, layout, summary: summary)
                if content != shown[i].content {
                    shown[i].content = content
                    shown[i].faces = redraw(shown[i].region, content, layout, theme, model.locale, canvas, &damage)
                }
            }
            canvas.damage.add(damage)
        } else {
            elements.removeAll()
            canvas.clear(theme.background)
            drawAll(model, layout, summary, theme, canvas)
            damage.add(canvas.bounds)
            canvas.addDamage(canvas.bounds)
            frame = now
        }
        var onScreen = FaceSet()
        for r in shown { onScreen.formUnion(r.faces) }
        fonts.closeFaces(except: onScreen)
        return damage
    }

    private func navSummary(_ m: ScreenModel) -> NavigationSummary? {
        guard let n = m.navigation else { return nil }
        if let c = summaryCache, c.instruction == n, c.locale == m.locale { return c.summary }
        let s = NavigationSummary(n, locale: m.locale)
        summaryCache = (n, m.locale, s)
        return s
    }

    // MARK: full frame

    private func drawAll(_ model: ScreenModel, _ layout: ScreenLayout, _ summary: NavigationSummary?, _ theme: Theme,
                         _ canvas: Canvas) {
        var ignored = Damage()
        shown.removeAll()
        for region in RegionContent.regions(of: layout.kind) {
            // The cards' surfaces go under their first region.
            if region == .navArrow {
                canvas.fillRoundedRect(layout.navCard, radius: layout.cardRadius, theme.surface)
                canvas.fillRoundedRect(layout.musicCard, radius: layout.cardRadius, theme.surface)
            } else if region == .pairing {
                canvas.fillRoundedRect(layout.pairingCard, radius: layout.cardRadius, theme.surface)
            }
            let content = RegionContent.of(region, model, layout, summary: summary)
            let faces = redraw(region, content, layout, theme, model.locale, canvas, &ignored, clear: false)
            shown.append((region, content, faces))
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
        case .state, .counters, .clock, .idle, .hint, .transfer: return theme.background
        default: return theme.surface
        }
    }

    /// Clears a region to its background and draws its content inside it;
    /// returns the faces its text was drawn with. `clear: false` when the
    /// background under the region is already fresh (a full frame).
    private func redraw(_ region: ScreenRegion, _ content: RegionContent, _ layout: ScreenLayout, _ theme: Theme,
                        _ locale: ScreenLocale, _ canvas: Canvas, _ damage: inout Damage, clear: Bool = true) -> FaceSet {
        let r = layout.rect(of: region)
        if r.isEmpty { return FaceSet() }
        elements.removeAll { $0.region == region }
        _ = fonts.takeDrawnFaces()
        canvas.withClip(r) {
            if clear { canvas.fill(r, ScreenRenderer.background(of: region, theme)) }
            let d = RegionPainter(fonts: fonts, canvas: canvas, layout: layout, theme: theme, locale: locale,
                                  region: region, box: r, maneuverIcon: maneuverIcon)
            d.paint(content)
            elements.append(contentsOf: d.drawn)
        }
        damage.add(r)
        return fonts.takeDrawnFaces()
    }
}

/// Draws the content of one region; records every element it draws.
private final class RegionPainter {
    let fonts: Fonts
    let canvas: Canvas
    let layout: ScreenLayout
    let theme: Theme
    let region: ScreenRegion
    let locale: ScreenLocale
    let box: Rect
    let maneuverIcon: (Maneuver, Int?) -> Path
    var drawn: [DrawnElement] = []

    init(fonts: Fonts, canvas: Canvas, layout: ScreenLayout, theme: Theme, locale: ScreenLocale, region: ScreenRegion,
         box: Rect, maneuverIcon: @escaping (Maneuver, Int?) -> Path) {
        self.fonts = fonts; self.canvas = canvas; self.layout = layout; self.theme = theme; self.locale = locale
        self.region = region; self.box = box; self.maneuverIcon = maneuverIcon
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

    /// Draws what the region shows; the model itself is not in reach (the
    /// frame's layout, theme and locale are: they repaint everything).
    func paint(_ content: RegionContent) {
        switch content {
        case .state(let state): paintState(state)
        case .counters(let dropped): paintCounters(dropped)
        case .clock(let clock):
            centredLine("clock", clock, in: box, size: px(26), weight: .bold, color: theme.text, alignment: .right)
        case .navArrow(let route, let maneuver, let exit): paintArrow(route: route, maneuver, exit)
        case .navDistance(let distance): paintDistance(distance)
        case .navApp(let app):
            guard !app.isEmpty else { return }
            text("app", app, in: box, TextStyle(size: px(19), color: theme.secondary))
        case .navText(let t): paintInstruction(t)
        case .musicMeta(let meta): paintMusicMeta(meta)
        case .musicIcon(let playing): paintMusicIcon(playing)
        case .musicProgress(let progress): paintProgress(progress)
        case .hint(let hint): paintHintStrip(hint)
        case .idle(let idle): paintIdle(idle)
        case .pairing(let pairing): paintPairing(pairing)
        case .transfer(let transfer): paintTransfer(transfer)
        }
    }

    private func paintState(_ state: PairingState) {
        let dotColor: Color
        switch state {
        case .connected: dotColor = theme.good
        case .discovering, .connecting: dotColor = theme.warn
        case .discover, .remembered: dotColor = theme.secondary
        }
        let r = Float(px(7))
        let dot = Rect(x: box.x, y: box.midY - Int(r), width: 2 * Int(r), height: 2 * Int(r))
        canvas.fillCircle(center: PointF(Float(dot.x) + r, Float(box.midY)), radius: r, dotColor)
        record("state-dot", "", dot, dot)
        let tx = dot.maxX + px(12)
        centredLine("state", locale.state(state), in: Rect(x: tx, y: box.y, width: box.maxX - tx, height: box.height),
                    size: px(20), weight: .bold, color: theme.text)
    }

    private func paintCounters(_ dropped: [Int]) {
        let h = px(32)
        let y = box.midY - h / 2
        let iconS = px(18)
        let size = px(18)
        var right = box.maxX
        for category in NotificationCategory.allCases {
            let i = category.rawValue
            guard i < dropped.count, dropped[i] > 0 else { continue }
            let label = dropped[i] > 99 ? "99+" : "\(dropped[i])"
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

    private func paintArrow(route: Bool, _ maneuver: Maneuver, _ exit: Int?) {
        let tileColor = route ? theme.accent : theme.raised
        canvas.fillRoundedRect(box, radius: Float(px(16)), tileColor)
        let inset = box.width * 14 / 100
        let iconBox = box.insetBy(dx: inset, dy: inset)
        canvas.drawIcon(maneuverIcon(maneuver, exit), in: iconBox, color: route ? theme.onAccent : theme.secondary)
        record("maneuver", "", box, box)
    }

    private func paintDistance(_ content: RegionContent.NavDistance) {
        switch content {
        case .noRoute:
            centredLine("distance", locale.text(.noRoute), in: box, size: px(40), weight: .bold, color: theme.secondary)
        case .maneuver(let maneuver):
            // No distance (an arrival, a bare instruction): name the maneuver instead.
            if let label = locale.label(maneuver) {
                centredLine("maneuver-label", label, in: box, size: px(44), weight: .bold, color: theme.text)
            }
        case .distance(let distance, let unit):
            // Number big, unit smaller, both on one baseline.
            var big = px(74)
            var small = big * 45 / 100
            let gap = px(8)
            let total = fonts.measure(distance, size: big, weight: .bold) + gap + fonts.measure(unit, size: small, weight: .bold)
            if total > box.width {
                big = max(8, big * box.width / total)
                small = max(6, big * 45 / 100)
            }
            let cap = fonts.capHeight(size: big, weight: .bold)
            let baseline = box.y + (box.height + cap) / 2
            let n = fonts.draw(distance, x: box.x, baseline: baseline, size: big, weight: .bold, color: theme.text,
                               maxWidth: box.width, on: canvas)
            record("distance", distance, box, n.ink)
            let ux = box.x + n.width + gap
            let u = fonts.draw(unit, x: ux, baseline: baseline, size: small, weight: .bold, color: theme.secondary,
                               maxWidth: max(1, box.maxX - ux), on: canvas)
            record("unit", unit, box, u.ink)
        }
    }

    private func paintInstruction(_ content: RegionContent.NavText) {
        guard case .instruction(let primaryText, let secondaryText) = content else {
            text("primary", locale.text(.startRoute), in: box, TextStyle(size: px(24), color: theme.secondary, maxLines: 2))
            return
        }
        let primary = TextStyle(size: px(30), weight: .bold, color: theme.text, maxLines: 3, lineHeight: 1.18)
        var y = box.y
        if !primaryText.isEmpty {
            let res = text("primary", primaryText, in: Rect(x: box.x, y: y, width: box.width, height: box.maxY - y), primary)
            y += res.lines * primary.lineAdvance + px(6)
        }
        let secondarySize = px(22)
        var style = TextStyle(size: secondarySize, color: theme.secondary, lineHeight: 1.25)
        let lineH = style.lineAdvance
        style.maxLines = max(0, (box.maxY - y - fonts.descent(size: secondarySize) + lineH - fonts.ascent(size: secondarySize)) / lineH)
        if !secondaryText.isEmpty && style.maxLines > 0 {
            text("secondary", secondaryText, in: Rect(x: box.x, y: y, width: box.width, height: box.maxY - y), style)
        }
    }

    private func paintMusicMeta(_ track: RegionContent.MusicMeta?) {
        guard let track else {
            text("title", locale.text(.nothingPlaying), in: box,
                 TextStyle(size: px(28), weight: .bold, color: theme.secondary, maxLines: 2))
            return
        }
        let title = TextStyle(size: px(30), weight: .bold, color: theme.text, maxLines: 3, lineHeight: 1.18)
        var y = box.y
        let res = text("title", track.title.isEmpty ? locale.text(.unknownTitle) : track.title,
                       in: Rect(x: box.x, y: y, width: box.width, height: box.maxY - y), title)
        y += res.lines * title.lineAdvance + px(8)
        if !track.artist.isEmpty && y + px(22) <= box.maxY {
            let artist = TextStyle(size: px(23), color: theme.text)
            text("artist", track.artist, in: Rect(x: box.x, y: y, width: box.width, height: artist.lineAdvance), artist)
            y += artist.lineAdvance + px(4)
        }
        if !track.album.isEmpty && y + px(20) <= box.maxY {
            let album = TextStyle(size: px(20), color: theme.secondary)
            text("album", track.album, in: Rect(x: box.x, y: y, width: box.width, height: album.lineAdvance), album)
        }
    }

    private func paintMusicIcon(_ playing: Bool?) {
        guard let playing else { return }
        let r = Float(box.width) / 2
        canvas.fillCircle(center: PointF(Float(box.x) + r, Float(box.y) + r), radius: r, playing ? theme.accent : theme.raised)
        let inner = box.insetBy(dx: box.width / 5, dy: box.height / 5)
        canvas.drawIcon(playing ? Icons.play() : Icons.pause(), in: inner, color: playing ? theme.onAccent : theme.text)
        record(playing ? "playing" : "paused", "", box, box)
    }

    private func paintProgress(_ progress: RegionContent.MusicProgress?) {
        guard let progress else { return }
        let barH = px(8)
        let bar = Rect(x: box.x, y: box.y + px(12), width: box.width, height: barH)
        canvas.fillRoundedRect(bar, radius: Float(barH) / 2, theme.track)
        record("progress-track", "", bar, bar)
        if progress.fill > 0 {
            canvas.fillRoundedRect(Rect(x: bar.x, y: bar.y, width: max(progress.fill, barH), height: barH), radius: Float(barH) / 2,
                                   theme.accent)
        }
        let size = px(19)
        let times = Rect(x: box.x, y: bar.maxY + px(6), width: box.width, height: box.maxY - bar.maxY - px(6))
        text("elapsed", formatDuration(seconds: progress.elapsed), in: times, TextStyle(size: size, color: theme.secondary))
        if let duration = progress.duration {
            text("duration", formatDuration(seconds: duration), in: times, TextStyle(size: size, color: theme.secondary, alignment: .right))
        }
    }

    private func paintHintStrip(_ hint: String?) {
        guard let hint else { return }
        canvas.fillRoundedRect(box, radius: Float(box.height) / 2, theme.surface)
        record("hint-strip", "", box, box)
        let r = Float(px(7))
        canvas.fillCircle(center: PointF(Float(box.x + px(22)), Float(box.midY)), radius: r, theme.warn)
        let tx = box.x + px(40)
        centredLine("hint", hint, in: Rect(x: tx, y: box.y, width: box.maxX - px(20) - tx, height: box.height),
                    size: px(20), weight: .regular, color: theme.text)
    }

    /// The band of a GhostDrop transfer: calm, one surface like the hint
    /// strip, no motion but the bar; the figures change at most as often as
    /// the receiver reports them.
    private func paintTransfer(_ transfer: RegionContent.Transfer?) {
        guard let transfer else { return }
        canvas.fillRoundedRect(box, radius: Float(px(14)), theme.surface)
        record("transfer-band", "", box, box)
        let size = px(19)
        var nameBox = layout.transferTitle
        if let percent = transfer.percent {
            let res = centredLine("transfer-percent", percent, in: layout.transferTitle, size: size, weight: .bold,
                                  color: theme.text, alignment: .right)
            nameBox.width = max(0, res.ink.x - px(12) - nameBox.x)
        }
        centredLine("transfer-name", transfer.name, in: nameBox, size: size, weight: .bold, color: theme.text)
        if let fill = transfer.fill {
            let bar = layout.transferBar
            canvas.fillRoundedRect(bar, radius: Float(bar.height) / 2, theme.track)
            if fill > 0 {
                canvas.fillRoundedRect(Rect(x: bar.x, y: bar.y, width: max(fill, bar.height), height: bar.height),
                                       radius: Float(bar.height) / 2, theme.accent)
            }
        }
        let color = transfer.percent != nil ? theme.secondary : (transfer.good ? theme.good : theme.danger)
        if !transfer.detail.isEmpty {
            text("transfer-detail", transfer.detail, in: layout.transferDetail, TextStyle(size: px(17), color: color))
        }
    }

    private func paintIdle(_ idle: RegionContent.Idle) {
        let state = idle.state
        let emblemColor = state.isConnected ? theme.good : theme.accent
        icon("emblem", Icons.phoneLink(), in: layout.idleIcon, color: emblemColor)
        if !layout.idleHeadline.isEmpty {
            text("headline", locale.state(state), in: layout.idleHeadline,
                 TextStyle(size: px(34), weight: .bold, color: theme.text, alignment: .center))
        }
        if let hint = idle.hint, !layout.idleHint.isEmpty {
            text("hint", hint, in: layout.idleHint,
                 TextStyle(size: px(22), color: theme.warn, alignment: .center, maxLines: 2, lineHeight: 1.25))
        }
        paintButtons(idle.actions, state: state)
    }

    /// `actions` on the layout's buttons, recorded as button-0, button-1...
    private func paintButtons(_ actions: [ScreenAction], state: PairingState) {
        for (i, r) in layout.buttons.enumerated() where i < actions.count {
            let action = actions[i]
            let label = locale.label(action, for: state)
            let bg: Color, fg: Color
            switch action {
            case .discover, .connect, .pairPhone, .codesMatch: bg = theme.accent; fg = theme.onAccent
            case .disconnect, .cancelCode: bg = theme.raised; fg = theme.text
            case .unpair: bg = theme.raised; fg = theme.danger
            }
            canvas.fillRoundedRect(r, radius: Float(px(16)), bg)
            let inner = r.insetBy(dx: px(16), dy: 0)
            // A longer label (another language) gets smaller type before it is cut short.
            var size = px(24)
            let width = fonts.measure(label, size: size, weight: .bold)
            if width > inner.width { size = max(px(17), size * inner.width / width) }
            let res = fonts.draw(label, in: Rect(x: inner.x, y: r.y + (r.height + fonts.capHeight(size: size, weight: .bold)) / 2
                                                 - fonts.ascent(size: size, weight: .bold), width: inner.width, height: r.height),
                                 style: TextStyle(size: size, weight: .bold, color: fg, alignment: .center), on: canvas)
            record("button-\(i)", label, r, r.union(res.ink))
        }
    }

    private func paintPairing(_ pairing: RegionContent.Pairing) {
        text("pairing-title", locale.text(pairing.transfer ? .compareCode : .enterPasskey), in: layout.pairingTitle,
             TextStyle(size: px(28), weight: .bold, color: theme.text, alignment: .center))
        let key = pairing.passkey
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
        // "Codes match" / "Cancel": their labels name no phone, whatever the state.
        if pairing.transfer { paintButtons(ScreenAction.codeAnswers, state: .discover) }
        if let hint = pairing.hint {
            text("hint", hint, in: layout.pairingHint,
                 TextStyle(size: px(22), color: theme.warn, alignment: .center, maxLines: 2, lineHeight: 1.25))
        } else if let name = pairing.server {
            text("hint", locale.text(.pairingWith, name), in: layout.pairingHint,
                 TextStyle(size: px(22), color: theme.secondary, alignment: .center))
        }
    }
}
