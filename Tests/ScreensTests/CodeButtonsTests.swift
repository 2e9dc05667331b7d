import Testing
import Graphics
import DisplaySettings
@testable import Screens
import ScreenValues

/// "Codes match" and "Cancel" under a GhostDrop transfer's code: where
/// they are, that a tap on either finds it (with the idle buttons' slack),
/// and that nothing else on that screen answers a tap, at the usual sizes
/// and on a panel mounted turned.
@Suite struct CodeButtonsTests {
    /// 800x480 and 1280x720, by width (test arguments are plain values).
    static let widths = [800, 1280]
    static func size(width: Int) -> Size { Size(width: width, height: width == 1280 ? 720 : 480) }

    /// Every `step`-th pixel of `size`: what a tap there finds, against
    /// what it should (a button's rectangle grown by the slack, else nothing).
    static func expectOnlyTheButtonsAnswer(_ model: ScreenModel, size: Size, step: Int = 4) {
        let layout = ScreenLayout(model: model, size: size)
        let slack = layout.px(6)
        let targets = zip(layout.buttons, model.buttonActions).map { ($0.insetBy(dx: -slack, dy: -slack), $1) }
        var wrong = 0
        for y in stride(from: 0, to: size.height, by: step) {
            for x in stride(from: 0, to: size.width, by: step) {
                let p = Point(x: x, y: y)
                let wanted = targets.first { $0.0.contains(p) }?.1
                if ScreenLayout.hitTest(p, model: model, size: size) != wanted { wrong += 1 }
            }
        }
        #expect(wrong == 0, "\(size): \(wrong) taps found the wrong thing")
    }

    @Test(arguments: widths) func twoBigButtonsUnderTheCode(width: Int) {
        let size = Self.size(width: width)
        for hint in [nil, "Phone forgot this head unit: pair again"] {
            var model = Fixtures.transferCode()
            model.hint = hint
            let l = ScreenLayout(model: model, size: size)
            #expect(model.buttonActions == [.codesMatch, .cancelCode])
            #expect(l.buttons.count == 2)
            guard l.buttons.count == 2 else { return }
            let match = l.buttons[0], cancel = l.buttons[1]
            // Side by side under the digits, as big as the idle buttons.
            #expect(match.y >= l.passkey.maxY && cancel.y == match.y && match.maxX < cancel.x)
            #expect(match.height == l.px(76) && match.width >= l.px(210) && cancel.width == match.width && cancel.height == match.height)
            #expect(l.rect(of: .pairing).contains(match) && l.rect(of: .pairing).contains(cancel))
            // The digits stay huge: the buttons take the room of the line
            // naming a pairing's phone.
            #expect(l.passkey.height >= l.px(150), "\(size): digits \(l.passkey)")
            if hint != nil {
                #expect(l.pairingHint.y >= match.maxY && l.rect(of: .pairing).contains(l.pairingHint))
            } else {
                #expect(l.pairingHint.height == 0)
            }
            // A tap in the middle, at a corner, and just outside (the slack) finds each.
            #expect(ScreenLayout.hitTest(Point(x: match.midX, y: match.midY), model: model, size: size) == .codesMatch)
            #expect(ScreenLayout.hitTest(Point(x: cancel.midX, y: cancel.midY), model: model, size: size) == .cancelCode)
            #expect(ScreenLayout.hitTest(Point(x: match.x - l.px(5), y: match.maxY + l.px(5)), model: model, size: size) == .codesMatch)
            #expect(ScreenLayout.hitTest(Point(x: cancel.maxX + l.px(5), y: cancel.y - l.px(5)), model: model, size: size) == .cancelCode)
            // Between the two, and on the digits: nothing.
            #expect(ScreenLayout.hitTest(Point(x: (match.maxX + cancel.x) / 2, y: match.midY), model: model, size: size) == nil)
            #expect(ScreenLayout.hitTest(Point(x: l.passkey.midX, y: l.passkey.midY), model: model, size: size) == nil)
            Self.expectOnlyTheButtonsAnswer(model, size: size)
        }
    }

    /// A pairing's passkey has no buttons (the phone's own screen answers
    /// there), also when a transfer's code waits behind it; the idle
    /// buttons do not answer under a code.
    @Test(arguments: widths) func thePasskeyScreenHasNone(width: Int) {
        let size = Self.size(width: width)
        var model = Fixtures.pairing()
        #expect(model.buttonActions.isEmpty && ScreenLayout(model: model, size: size).buttons.isEmpty)
        Self.expectOnlyTheButtonsAnswer(model, size: size, step: 8)
        model.transferCode = "305114"
        #expect(model.kind == .pairing && model.buttonActions.isEmpty && ScreenLayout(model: model, size: size).buttons.isEmpty)
        Self.expectOnlyTheButtonsAnswer(model, size: size, step: 8)
        var code = Fixtures.transferCode()
        code.actions = [.disconnect, .unpair]
        #expect(code.buttonActions == ScreenAction.codeAnswers)
    }

    /// A panel mounted turned: the touch arrives in the panel's
    /// coordinates and is turned back (ScreenOutput.action(at:)) before the
    /// hit test; the portrait layout stacks the two buttons.
    @Test(arguments: [90, 180, 270])
    func aTurnedPanel(degrees: Int) throws {
        let rotation = try #require(Rotation(degrees: degrees))
        let physical = Size(width: 800, height: 480)
        let logical = rotation.logicalSize(physical: physical)
        let model = Fixtures.transferCode()
        let l = ScreenLayout(model: model, size: logical)
        #expect(l.buttons.count == 2)
        guard l.buttons.count == 2 else { return }
        if logical.isPortrait {
            #expect(l.buttons[1].y > l.buttons[0].maxY, "portrait: stacked")
            #expect(l.buttons[0].width >= l.px(300))
        }
        for (r, action) in zip(l.buttons, ScreenAction.codeAnswers) {
            let onPanel = rotation.physicalRect(r, logical: logical)
            let tap = rotation.logicalPoint(physical: Point(x: onPanel.midX, y: onPanel.midY), logical: logical)
            #expect(ScreenLayout.hitTest(tap, model: model, size: logical) == action, "\(rotation) \(action)")
        }
        // The same panel point without the turn is not the same button.
        let matchOnPanel = rotation.physicalRect(l.buttons[0], logical: logical)
        #expect(ScreenLayout.hitTest(Point(x: matchOnPanel.midX, y: matchOnPanel.midY), model: model, size: logical) != .codesMatch)
        Self.expectOnlyTheButtonsAnswer(model, size: logical, step: 6)
    }

    @Test func theLabelsInEveryLanguage() {
        let en = ScreenLocale()
        #expect(en.label(.codesMatch, for: .discover) == "Codes match" && en.label(.cancelCode, for: .discover) == "Cancel")
        let de = ScreenLocale(language: .german)
        #expect(de.label(.codesMatch, for: .discover) == "Codes stimmen überein" && de.label(.cancelCode, for: .discover) == "Abbrechen")
        for language in ScreenLanguage.allCases where language != .english {
            let l = ScreenLocale(language: language)
            #expect(l.label(.codesMatch, for: .discover) != "Codes match", "\(language.code)")
            #expect(l.label(.cancelCode, for: .discover) != "Cancel", "\(language.code)")
        }
    }
}
