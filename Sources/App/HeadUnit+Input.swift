import BluetoothCore
import Config
import Display
import Drivers
import Graphics
import HeadUnitCore
import Input
import Platform

/// Touch and keys: taps on the on-screen actions, media keys to the phone's
/// player, the confirm key for Numeric Comparison.
extension HeadUnit {
    func startInput() {
        let logical = screen.size ?? configuration.displayOptions.virtualSize
        let physical = configuration.displayOptions.rotation.physicalSize(logical: logical)
        let devices = InputDevices(loop: loop, settings: configuration.input, panelWidth: physical.width, panelHeight: physical.height)
        devices.onAction = { [unowned(unsafe) self] action in self.inputAction(action) }
        devices.start()
        input = devices
    }

    func inputAction(_ action: InputAction) {
        let now = Clock.now()
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
            core.confirmComparison(now: now)
        case .key:
            break
        }
        carryOut()
    }
}
