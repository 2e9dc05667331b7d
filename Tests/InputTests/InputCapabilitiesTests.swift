import Testing
@testable import Input

@Suite struct InputCapabilitiesTests {
    @Test func classification() {
        #expect(stPanel.touchscreen == TouchscreenAxes(x: AxisRange(minimum: 0, maximum: 4095),
                                                       y: AxisRange(minimum: 0, maximum: 4095), multitouch: false))
        #expect(mtPanel.touchscreen?.multitouch == true)
        #expect(mediaKeyboard.touchscreen == nil)
        #expect(mediaKeyboard.isUseful(confirmKey: .enter))
        // A touchpad moves a pointer: not a touchscreen.
        var touchpad = stPanel
        touchpad.pointer = true
        touchpad.keys.insert(.buttonToolFinger)
        #expect(touchpad.touchscreen == nil)
        #expect(!touchpad.isUseful(confirmKey: .enter))
        // A joystick: axes but no touch.
        let joystick = InputCapabilities(keys: [KeyCode(0x130)], axes: stPanel.axes)
        #expect(joystick.touchscreen == nil)
        // A direct panel that reports its contact as BTN_LEFT.
        let egalax = InputCapabilities(keys: [.buttonLeft], axes: stPanel.axes, direct: true)
        #expect(egalax.touchscreen?.touchKey == .buttonLeft)
        // An unusable range (min == max) is no touchscreen.
        let broken = InputCapabilities(keys: [.buttonTouch], axes: [0: AxisRange(minimum: 0, maximum: 0),
                                                                    1: AxisRange(minimum: 0, maximum: 0)])
        #expect(broken.touchscreen == nil)
        // Power button only: nothing for the head unit.
        #expect(!InputCapabilities(keys: [KeyCode(116)]).isUseful(confirmKey: .enter))
        #expect(InputCapabilities(keys: [KeyCode(116)]).isUseful(confirmKey: KeyCode(116)))
    }

    @Test func bitmask() {
        #expect(InputCapabilities.bits(inMask: [0b0000_0011, 0, 0x80]) == [0, 1, 23])
        #expect(InputCapabilities.bits(inMask: []) == [])
    }

    @Test func eGalaxTap() {
        let caps = InputCapabilities(keys: [.buttonLeft], axes: stPanel.axes, direct: true)
        var s = EventStream()
        s.add(.key, KeyCode.buttonLeft.rawValue, 1)
        s.stMove(4095, 0)
        s.add(.key, KeyCode.buttonLeft.rawValue, 0)
        s.sync()
        #expect(run(caps, s) == [.tap(TouchPoint(x: 799, y: 0))])
    }
}
