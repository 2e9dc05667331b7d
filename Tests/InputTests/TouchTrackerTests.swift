import Testing
@testable import Input

@Suite struct TouchTrackerTests {
    @Test func singleTouchTapIsScaledToThePanel() {
        var s = EventStream()
        s.stDown(2048, 2048)
        s.wait(ms: 80)
        s.stMove(2050, 2046)
        s.wait(ms: 40)
        s.stUp()
        #expect(run(stPanel, s) == [.tap(TouchPoint(x: 400, y: 240))])
    }

    @Test func cornersMapToPanelCorners() {
        var s = EventStream()
        s.stDown(0, 0); s.stUp()
        s.stDown(4095, 4095); s.stUp()
        // Panels report a little outside their range near the edges: clamped.
        s.stDown(-30, 5000); s.stUp()
        #expect(run(stPanel, s) == [.tap(TouchPoint(x: 0, y: 0)), .tap(TouchPoint(x: 799, y: 479)),
                                    .tap(TouchPoint(x: 0, y: 479))])
    }

    @Test func dragIsNotATap() {
        var s = EventStream()
        s.stDown(500, 500)
        for step in 1...10 {
            s.wait(ms: 16)
            s.stMove(500 + Int32(step) * 150, 500)
        }
        s.stUp()
        #expect(run(stPanel, s).isEmpty)
    }

    @Test func dragThatComesBackIsStillNotATap() {
        var s = EventStream()
        s.stDown(500, 500)
        s.stMove(1500, 500)
        s.stMove(500, 500)
        s.stUp()
        #expect(run(stPanel, s).isEmpty)
    }

    @Test func jitterWithinTheSlopIsATap() {
        // 1/16 of 480 = 30 px; 100 raw units are about 20 px across 800 px.
        var s = EventStream()
        s.stDown(1000, 1000)
        s.stMove(1100, 1000)
        s.stMove(1000, 1100)
        s.stUp()
        #expect(run(stPanel, s) == [.tap(TouchPoint(x: 195, y: 117))])
    }

    /// Found by fuzzing (Fuzz/corpus/input/crash-wild-timestamps): a touch
    /// whose timestamps lie far apart overflowed the held-time subtraction.
    @Test func wildTimestampsAreNoTap() {
        var s = EventStream()
        s.time = -9_000_000_000_000_000_000
        s.stDown(1000, 1000)
        s.time = 9_000_000_000_000_000_000
        s.stUp()
        #expect(run(stPanel, s).isEmpty)
    }

    @Test func longPressIsNotATap() {
        var s = EventStream()
        s.stDown(1000, 1000)
        s.wait(ms: 1500)
        s.stUp()
        #expect(run(stPanel, s).isEmpty)
        var limits = TapLimits()
        limits.maximumMilliseconds = 2000
        #expect(run(stPanel, s, settings: InputSettings(tapLimits: limits)).count == 1)
    }

    @Test func multitouchTapUsesSlotsAndIgnoresEmulation() {
        var s = EventStream()
        s.mtDown(slot: 0, id: 17, 640, 360)
        s.wait(ms: 60)
        // The emulated ABS_X jumping must not count as movement.
        s.add(.absolute, AbsoluteAxisCode.x, 10)
        s.sync()
        s.mtUp(slot: 0)
        #expect(run(mtPanel, s) == [.tap(TouchPoint(x: 640, y: 360))])
    }

    /// A second finger spoils the tap, whichever finger lifts first.
    @Test(arguments: [Int32(1), 0])
    func secondFingerCancelsTheTap(firstLifted: Int32) {
        var s = EventStream()
        s.mtDown(slot: 0, id: 1, 100, 100)
        s.mtDown(slot: 1, id: 2, 600, 300, first: false)
        s.mtUp(slot: firstLifted, last: false)
        s.mtUp(slot: 1 - firstLifted)
        #expect(run(mtPanel, s).isEmpty)
    }

    @Test func nextContactInTheSameSlotAtTheSamePlace() {
        // The kernel drops unchanged values: the second contact in slot 0
        // at the same spot sends no positions. Still a tap, at that spot.
        var s = EventStream()
        s.mtDown(slot: 0, id: 5, 300, 200)
        s.mtUp(slot: 0)
        s.add(.absolute, AbsoluteAxisCode.multitouchTrackingID, 6)
        s.add(.key, KeyCode.buttonTouch.rawValue, 1)
        s.sync()
        s.mtUp(slot: 0)
        #expect(run(mtPanel, s) == [.tap(TouchPoint(x: 300, y: 200)), .tap(TouchPoint(x: 300, y: 200))])
    }

    @Test func multitouchWithoutTouchKey() {
        var caps = mtPanel
        caps.keys = []
        var s = EventStream()
        s.add(.absolute, AbsoluteAxisCode.multitouchTrackingID, 3)
        s.add(.absolute, AbsoluteAxisCode.multitouchPositionX, 50)
        s.add(.absolute, AbsoluteAxisCode.multitouchPositionY, 60)
        s.sync()
        s.add(.absolute, AbsoluteAxisCode.multitouchTrackingID, -1)
        s.sync()
        #expect(run(caps, s) == [.tap(TouchPoint(x: 50, y: 60))])
    }

    @Test func droppedEventsCancelTheGesture() {
        var s = EventStream()
        s.stDown(1000, 1000)
        s.add(.synchronization, SynchronizationCode.dropped, 0)
        s.add(.absolute, AbsoluteAxisCode.x, 3000)
        s.sync()
        s.stUp()
        // The next touch works again.
        s.stDown(2048, 2048)
        s.stUp()
        #expect(run(stPanel, s) == [.tap(TouchPoint(x: 400, y: 240))])
    }

    @Test func calibrationSwapsThenInverts() {
        var s = EventStream()
        s.stDown(0, 4095) // touch X minimum, Y maximum
        s.stUp()
        let swapped = InputSettings(calibration: TouchCalibration(swapAxes: true))
        #expect(run(stPanel, s, settings: swapped) == [.tap(TouchPoint(x: 799, y: 0))])
        let inverted = InputSettings(calibration: TouchCalibration(swapAxes: true, invertX: true, invertY: true))
        #expect(run(stPanel, s, settings: inverted) == [.tap(TouchPoint(x: 0, y: 479))])
    }

    @Test func outOfRangeSlotIsIgnored() {
        var s = EventStream()
        s.add(.absolute, AbsoluteAxisCode.multitouchSlot, 9999)
        s.add(.absolute, AbsoluteAxisCode.multitouchTrackingID, 1)
        s.sync()
        s.add(.absolute, AbsoluteAxisCode.multitouchSlot, -5)
        s.add(.absolute, AbsoluteAxisCode.multitouchPositionX, 1)
        s.sync()
        #expect(run(mtPanel, s).isEmpty)
    }

    @Test func panelSizeCanChange() {
        var device = InputInterpreter(capabilities: stPanel, panelWidth: 800, panelHeight: 480)
        device.setPanelSize(width: 1280, height: 720)
        var s = EventStream()
        s.stDown(4095, 4095)
        s.stUp()
        #expect(device.receive(s.bytes) == [.tap(TouchPoint(x: 1279, y: 719))])
    }
}
