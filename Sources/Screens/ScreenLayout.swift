import Graphics
import ScreenValues

/// Where everything goes for one model kind and screen size. Pure
/// arithmetic (no fonts), so the hit test can use it without drawing.
/// Sizes are designed at 800x480 and scale with the shorter side, so type
/// stays big on 7" panels and proportionate on 1080p; portrait stacks the
/// cards and buttons.
public struct ScreenLayout: Equatable {
    public var size: Size
    public var kind: ScreenKind
    /// Pixels per design unit (1 at 480 px on the shorter side).
    public var unit: Float

    public var statusBar = Rect.empty
    public var stateText = Rect.empty
    public var counters = Rect.empty
    public var clock = Rect.empty
    public var main = Rect.empty

    // Cards.
    public var navCard = Rect.empty
    public var musicCard = Rect.empty
    public var navArrow = Rect.empty
    public var navDistance = Rect.empty
    public var navApp = Rect.empty
    public var navText = Rect.empty
    public var musicMeta = Rect.empty
    public var musicIcon = Rect.empty
    public var musicProgress = Rect.empty
    public var hintStrip = Rect.empty

    /// A GhostDrop transfer's band, along the bottom of the cards or the
    /// idle screen (not over the code to compare: that screen is the
    /// transfer's own).
    public var transferBand = Rect.empty
    /// Inside the band: the name and the percent, the bar, the rate and
    /// the time left (or the outcome).
    public var transferTitle = Rect.empty
    public var transferBar = Rect.empty
    public var transferDetail = Rect.empty

    // Idle.
    public var idleIcon = Rect.empty
    public var idleHeadline = Rect.empty
    public var idleHint = Rect.empty
    /// The buttons of the idle screen, or "Codes match" and "Cancel" under
    /// a transfer's code (`ScreenModel.buttonActions`, in that order).
    public var buttons: [Rect] = []

    // Pairing.
    public var pairingCard = Rect.empty
    public var pairingTitle = Rect.empty
    public var passkey = Rect.empty
    public var pairingHint = Rect.empty

    /// Design units to pixels.
    @inline(__always)
    public func px(_ v: Float) -> Int { Int(v * unit + 0.5) }

    public var cardRadius: Float { 18 * unit }

    public init(model: ScreenModel, size: Size) {
        self.init(kind: model.kind, size: size, hasHint: model.hint != nil, buttonCount: model.buttonActions.count,
                  counterCount: model.dropped.prefix(NotificationCategory.allCases.count).filter { $0 > 0 }.count,
                  showsHeadline: ScreenLayout.showsHeadline(model), wideClock: model.locale.clock == .hours12,
                  hasTransfer: model.transfer != nil)
    }

    /// The idle screen states its words in a headline unless a button
    /// already says the same ("Discover Server App", "Connect to NAME").
    public static func showsHeadline(_ model: ScreenModel) -> Bool {
        !model.actions.contains { $0.label(for: model.pairing) == model.pairing.text }
    }

    /// `buttonCount`: the idle screen's buttons, or the answers under a
    /// transfer's code on the pairing screen (none under a passkey).
    /// `counterCount`: categories with dropped notifications; the status
    /// text gets the room the counters do not need.
    /// `wideClock`: a 12-hour clock ("12:45 PM") needs more room.
    /// `hasTransfer`: a GhostDrop transfer's band takes the bottom of the
    /// main area; the cards and the idle screen fit above it.
    public init(kind: ScreenKind, size: Size, hasHint: Bool, buttonCount: Int, counterCount: Int = 0,
                showsHeadline: Bool = true, wideClock: Bool = false, hasTransfer: Bool = false) {
        self.size = size
        self.kind = kind
        unit = Float(max(1, min(size.width, size.height))) / 480
        let w = size.width, h = size.height
        let m = px(14)
        let barH = px(56)
        statusBar = Rect(x: 0, y: 0, width: w, height: barH)
        let clockW = px(wideClock ? 150 : 104)
        clock = Rect(x: w - m - clockW, y: 0, width: clockW, height: barH)
        if size.isPortrait && counterCount > 0 {
            // Too narrow for state, counters and clock on one row: the
            // counters get a row of their own.
            counters = Rect(x: m, y: barH, width: w - 2 * m, height: px(40))
            stateText = Rect(x: m, y: 0, width: clock.x - px(12) - m, height: barH)
            statusBar.height = counters.maxY
        } else {
            let countersW = min(counterCount * px(84), (w - 2 * m) * 2 / 5)
            counters = Rect(x: clock.x - px(12) - countersW, y: 0, width: countersW, height: barH)
            stateText = Rect(x: m, y: 0, width: counters.x - px(12) - m, height: barH)
        }
        main = Rect(x: m, y: statusBar.maxY, width: w - 2 * m, height: h - statusBar.maxY - m)

        switch kind {
        case .cards: layoutCards(hasHint: hasHint, hasTransfer: hasTransfer)
        case .idle:
            if hasTransfer {
                transferBand = Rect(x: main.x, y: main.maxY - transferBandHeight, width: main.width, height: transferBandHeight)
                main.height -= transferBandHeight + px(14)
            }
            layoutIdle(buttonCount: buttonCount, headline: showsHeadline, hint: hasHint)
        case .pairing: layoutPairing(buttonCount: buttonCount, hasHint: hasHint)
        }
        if !transferBand.isEmpty {
            let inner = transferBand.insetBy(dx: px(16), dy: px(8))
            transferTitle = Rect(x: inner.x, y: inner.y, width: inner.width, height: px(26))
            transferBar = Rect(x: inner.x, y: transferTitle.maxY + px(5), width: inner.width, height: px(6))
            transferDetail = Rect(x: inner.x, y: transferBar.maxY + px(3), width: inner.width, height: inner.maxY - transferBar.maxY - px(3))
        }
    }

    /// The band's two lines (name and percent; rate and time left) and its bar.
    var transferBandHeight: Int { px(76) }

    private mutating func layoutCards(hasHint: Bool, hasTransfer: Bool) {
        let gap = px(14)
        var area = main
        if hasHint {
            let stripH = px(44)
            hintStrip = Rect(x: main.x, y: main.maxY - stripH, width: main.width, height: stripH)
            area.height -= stripH + gap
        }
        if size.isPortrait {
            let navH = (area.height - gap) * 56 / 100
            navCard = Rect(x: area.x, y: area.y, width: area.width, height: navH)
            musicCard = Rect(x: area.x, y: navCard.maxY + gap, width: area.width, height: area.maxY - navCard.maxY - gap)
        } else {
            let navW = (area.width - gap) * 58 / 100
            navCard = Rect(x: area.x, y: area.y, width: navW, height: area.height)
            musicCard = Rect(x: navCard.maxX + gap, y: area.y, width: area.maxX - navCard.maxX - gap, height: area.height)
        }
        if hasTransfer {
            // Under the music card, which gives up the room: the navigation
            // card, the next turn, keeps its size while a file arrives.
            let bandH = transferBandHeight
            transferBand = Rect(x: musicCard.x, y: musicCard.maxY - bandH, width: musicCard.width, height: bandH)
            musicCard.height -= bandH + gap
        }
        // Navigation: arrow tile, distance beside it, instruction below.
        let p = px(20)
        let inner = navCard.insetBy(dx: p, dy: p)
        let side = min(px(150), inner.height * 46 / 100, inner.width * 40 / 100)
        navArrow = Rect(x: inner.x, y: inner.y, width: side, height: side)
        let dx = navArrow.maxX + px(20)
        let distH = side * 64 / 100
        navDistance = Rect(x: dx, y: inner.y, width: inner.maxX - dx, height: distH)
        navApp = Rect(x: dx, y: navDistance.maxY, width: inner.maxX - dx, height: side - distH)
        let ty = navArrow.maxY + px(16)
        navText = Rect(x: inner.x, y: ty, width: inner.width, height: inner.maxY - ty)

        // Music: metadata on top, state icon and progress along the bottom.
        let mi = musicCard.insetBy(dx: p, dy: p)
        let progH = px(64)
        let iconS = px(56)
        musicIcon = Rect(x: mi.x, y: mi.maxY - progH + (progH - iconS) / 2, width: iconS, height: iconS)
        let bx = musicIcon.maxX + px(16)
        musicProgress = Rect(x: bx, y: mi.maxY - progH, width: mi.maxX - bx, height: progH)
        musicMeta = Rect(x: mi.x, y: mi.y, width: mi.width, height: musicProgress.y - px(12) - mi.y)
    }

    /// Whether `n` buttons fit side by side in `width`; else they stack.
    private func buttonRowFits(_ n: Int, width: Int) -> Bool {
        n == 0 || n * px(210) + (n - 1) * buttonGap <= width
    }

    /// A button's height and the gap between buttons, on every screen that has them.
    private var buttonHeight: Int { px(76) }
    private var buttonGap: Int { px(16) }

    /// The height `n` buttons take in `width`.
    private func buttonsHeight(_ n: Int, width: Int) -> Int {
        guard n > 0 else { return 0 }
        return buttonRowFits(n, width: width) ? buttonHeight : n * buttonHeight + (n - 1) * buttonGap
    }

    /// `n` buttons from `top`, centred in `area`: one row if it fits, else
    /// stacked. Big targets: 76 units high, up to 340 wide in a row.
    private func buttonRects(_ n: Int, top: Int, in area: Rect) -> [Rect] {
        let gap = buttonGap
        let btnH = buttonHeight
        var rects: [Rect] = []
        var y = top
        if buttonRowFits(n, width: area.width) {
            let bw = min(px(340), (area.width - (n - 1) * gap) / max(n, 1))
            var x = area.midX - (n * bw + (n - 1) * gap) / 2
            for _ in 0..<n {
                rects.append(Rect(x: x, y: y, width: bw, height: btnH))
                x += bw + gap
            }
        } else {
            let bw = min(area.width, px(420))
            for _ in 0..<n {
                rects.append(Rect(x: area.midX - bw / 2, y: y, width: bw, height: btnH))
                y += btnH + gap
            }
        }
        return rects
    }

    private mutating func layoutIdle(buttonCount: Int, headline: Bool, hint: Bool) {
        let n = max(0, buttonCount)
        let buttonsH = buttonsHeight(n, width: main.width)
        let iconS = px(84)
        let headH = headline ? px(46) : 0
        let hintH = hint ? px(60) : 0
        let spacing = px(20)
        let total = iconS + spacing + headH + hintH + buttonsH + (headline || hint ? spacing : 0)
        var y = main.y + max(0, (main.height - total) / 2)
        idleIcon = Rect(x: main.midX - iconS / 2, y: y, width: iconS, height: iconS)
        y += iconS + spacing
        let textW = min(main.width, px(720))
        idleHeadline = Rect(x: main.midX - textW / 2, y: y, width: textW, height: headH)
        y += headH
        idleHint = Rect(x: main.midX - textW / 2, y: y, width: textW, height: hintH)
        y += hintH + (headline || hint ? spacing : 0)
        buttons = buttonRects(n, top: y, in: main)
    }

    /// The title, the digits as large as fit, then: under a passkey the
    /// line naming the phone (or a hint); under a transfer's code its two
    /// buttons, and a hint only if there is one.
    private mutating func layoutPairing(buttonCount: Int, hasHint: Bool) {
        pairingCard = main
        let inner = main.insetBy(dx: px(24), dy: px(20))
        let n = max(0, buttonCount)
        let titleH = px(44)
        let hintH = n == 0 || hasHint ? px(64) : 0
        // The buttons' gap above them, and one under them before a hint.
        let buttonsH = n > 0 ? px(16) + buttonsHeight(n, width: inner.width) + (hintH > 0 ? px(12) : 0) : 0
        let keyH = max(0, min(px(170), inner.height - titleH - buttonsH - hintH))
        let total = titleH + keyH + buttonsH + hintH
        let y = inner.y + max(0, (inner.height - total) / 2)
        pairingTitle = Rect(x: inner.x, y: y, width: inner.width, height: titleH)
        passkey = Rect(x: inner.x, y: pairingTitle.maxY, width: inner.width, height: keyH)
        buttons = buttonRects(n, top: passkey.maxY + px(16), in: inner)
        pairingHint = Rect(x: inner.x, y: passkey.maxY + buttonsH, width: inner.width, height: hintH)
    }

    /// The rectangle a region is drawn (and cleared) in.
    public func rect(of region: ScreenRegion) -> Rect {
        let l = self
        switch region {
        case .state: return l.stateText
        case .counters: return l.counters
        case .clock: return l.clock
        case .navArrow: return l.navArrow
        case .navDistance: return l.navDistance
        case .navApp: return l.navApp
        case .navText: return l.navText
        case .musicMeta: return l.musicMeta
        case .musicIcon: return l.musicIcon
        case .musicProgress: return l.musicProgress
        case .hint: return l.hintStrip
        case .transfer: return l.transferBand
        case .idle: return l.main
        case .pairing: return l.pairingCard.insetBy(dx: Int(l.cardRadius), dy: Int(l.cardRadius) / 2)
        }
    }

    /// The action under a touch at `point` (logical coordinates), if any:
    /// only the buttons answer (`ScreenModel.buttonActions`).
    public static func hitTest(_ point: Point, model: ScreenModel, size: Size) -> ScreenAction? {
        let layout = ScreenLayout(model: model, size: size)
        let actions = model.buttonActions
        // Targets are generous: a few pixels around each button still count.
        let slack = layout.px(6)
        for (i, r) in layout.buttons.enumerated() where i < actions.count {
            if r.insetBy(dx: -slack, dy: -slack).contains(point) { return actions[i] }
        }
        return nil
    }
}
