import BluetoothCore
import GhostDrop
import GhostDropFixture
import Graphics
@testable import HeadUnitCore
import ScreenValues
import ScriptedPeers
import Screens
import Testing

/// The driver's tap on "Codes match" or "Cancel" under a transfer's code,
/// from the screen the core composes through the hit test to the core's
/// answer to the recorded sender, in virtual time.
extension GhostDropTransferTests {
    /// Where the driver taps the button for `action` on the screen as the
    /// core composes it now (800x480), and what the hit test finds there.
    func tap(_ action: ScreenAction, _ rig: CoreRig) -> ScreenAction? {
        let model = rig.screen()
        let size = Size(width: 800, height: 480)
        let layout = ScreenLayout(model: model, size: size)
        guard let i = model.buttonActions.firstIndex(of: action), i < layout.buttons.count else { return nil }
        let found = ScreenLayout.hitTest(Point(x: layout.buttons[i].midX, y: layout.buttons[i].midY), model: model, size: size)
        if let found { rig.core.perform(found, now: rig.now) }
        rig.settle()
        return found
    }

    @Test func aTapOnCodesMatchAnswersTheSenderAndTheFileArrives() throws {
        let fixture = try TransferFixture.load()
        let session = fixture.sessions[0]
        let rig = try openChannel(session)
        var tapped = false
        let (sent, expected) = run(session, rig) { rig in
            #expect(rig.screen().buttonActions == [.codesMatch, .cancelCode])
            #expect(tap(.codesMatch, rig) == .codesMatch)
            tapped = true
            #expect(rig.core.ghostDrop.codeShown == nil && rig.screen().transferCode == nil)
            // The code screen has gone, and with it its buttons.
            #expect(!rig.screen().buttonActions.contains(.cancelCode))
            // A tap that reaches the core late (the screen still showed
            // the code) answers nothing and stops nothing.
            rig.core.perform(.cancelCode, now: rig.now)
        }
        #expect(tapped)
        // verifyAck(true) and every frame after it as the recorded sender
        // expected them (the recording answered on the console).
        #expect(sent == expected)
        let got = reports(rig)
        #expect(got.first == .code(session.sas))
        #expect(got.contains(.verified))
        #expect(got.contains(.incoming(filename: "headunit.conf", size: Int64(fixture.file.count), mimeType: "text/plain", startOffset: 0)))
        #expect(!got.contains { if case .ended(_, false, false) = $0 { return true } else { return false } })
    }

    @Test func aTapOnCancelAnswersTheCodeWithNo() throws {
        let (session, rig) = try codeWaiting()
        let before = rig.screen()
        #expect(tap(.cancelCode, rig) == .cancelCode)
        #expect(reports(rig) == [.code(session.sas), .ended(reason: "Codes did not match", byPeer: false, resumable: false)])
        let sent = try sentFrames(rig)
        #expect(sent.map(\.kind) == [.helloAck, .verifyAck])
        #expect(sent.last == .verifyAck(accepted: false))
        #expect(rig.core.ghostDrop.codeShown == nil && rig.screen().kind != .pairing)
        // "Codes match" on the screen as it was: too late, nothing is sent.
        let size = Size(width: 800, height: 480)
        let old = ScreenLayout(model: before, size: size)
        let stale = ScreenLayout.hitTest(Point(x: old.buttons[0].midX, y: old.buttons[0].midY), model: before, size: size)
        #expect(stale == .codesMatch)
        rig.core.perform(.codesMatch, now: rig.now)
        rig.settle()
        #expect(reports(rig).count == 2)
        #expect(try sentFrames(rig).count == 2)
    }
}
