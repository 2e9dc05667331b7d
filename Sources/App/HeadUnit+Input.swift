import BluetoothCore
import Graphics
import HeadUnitCore
import Input
import Platform

/// Touch and keys: taps on the on-screen actions, media keys to the phone's
/// player, the confirm key for Numeric Comparison.
extension HeadUnit {
    func inputAction(_ action: InputAction, now: Instant) {
        switch action {
        case .tap(let point):
            guard let target = screen.action(at: Point(x: point.x, y: point.y)) else { return }
            Log.info("input", "touch: \(target)")
            core.perform(target, now: now)
        case .media(let command):
            if !core.media(command, now: now) {
                Log.info("input", "\(command): no player on the phone takes it now")
            }
        case .confirm:
            // A transfer's code first: a pairing's comparison has the phone's own screen.
            if core.transferCodeShown != nil {
                core.answerTransferCode(matches: true, now: now)
            } else {
                core.confirmComparison(now: now)
            }
        case .key(let key):
            // Escape: "Cancel" to a transfer's code, or stop the transfer.
            if key == .escape { core.cancelTransfer(now: now) }
        }
    }
}
