import BluetoothCore
import Input

/// What an input device (touchscreen, steering-wheel keys, a USB keyboard)
/// reports: a device description (axes and their ranges, keys, properties,
/// panel size, calibration) from the input's first bytes, then its evdev
/// byte stream in input-chosen reads.
enum InputTarget {
    static let target = FuzzTarget(name: "input", run: run, seeds: seeds)

    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let flags = input.byte()
        var keys: Set<KeyCode> = [.playPause, .nextSong, .enter]
        if flags & 0x01 != 0 { keys.insert(.buttonTouch) }
        if flags & 0x02 != 0 { keys.insert(.buttonLeft) }
        var axes: [UInt16: AxisRange] = [:]
        func range() -> AxisRange { AxisRange(minimum: Int32(bitPattern: input.u32()), maximum: Int32(bitPattern: input.u32())) }
        if flags & 0x04 != 0 {
            axes[AbsoluteAxisCode.multitouchPositionX] = range()
            axes[AbsoluteAxisCode.multitouchPositionY] = range()
        } else {
            axes[AbsoluteAxisCode.x] = range()
            axes[AbsoluteAxisCode.y] = range()
        }
        let capabilities = InputCapabilities(name: "fuzz", keys: keys, axes: axes, direct: flags & 0x08 != 0,
                                             pointer: flags & 0x10 != 0)
        let calibration = TouchCalibration(swapAxes: flags & 0x20 != 0, invertX: flags & 0x40 != 0, invertY: flags & 0x80 != 0)
        let width = Int(input.u16()), height = Int(input.u16())
        var device = InputInterpreter(capabilities: capabilities, settings: InputSettings(calibration: calibration),
                                      panelWidth: width, panelHeight: height)
        let stream = input.rest()

        // Events do not depend on how reads cut the stream.
        var whole = EvdevDecoder()
        let expected = whole.decode(stream)
        invariant(expected.count == stream.count / EvdevDecoder.eventSize, "events lost or invented")
        var decoder = EvdevDecoder()
        var events: [InputEvent] = []
        var random = SplitMix(seed: SplitMix.seed(data))
        var start = 0
        while start < stream.count {
            let end = min(stream.count, start + 1 + random.below(64))
            let read = Array(stream[start..<end])
            events += decoder.decode(read)
            invariant(decoder.pendingCount < EvdevDecoder.eventSize, "decoder holds a whole event")
            for action in device.receive(read) {
                if case .tap(let p) = action {
                    invariant(p.x >= 0 && p.y >= 0 && p.x < max(width, 1) && p.y < max(height, 1),
                              "tap at \(p) outside the \(width)x\(height) panel")
                }
            }
            start = end
        }
        invariant(events == expected, "events depend on how reads cut the stream")
    }

    static func seeds() -> [(String, [UInt8])] {
        func event(_ time: Int64, _ type: EventType, _ code: UInt16, _ value: Int32) -> [UInt8] {
            EvdevDecoder.encode(InputEvent(microseconds: time, type: type, code: code, value: value))
        }
        func header(_ flags: UInt8, _ x: (Int32, Int32), _ y: (Int32, Int32), _ w: UInt16 = 800, _ h: UInt16 = 480) -> [UInt8] {
            var s = Script([flags])
            s.u32(UInt32(bitPattern: x.0)); s.u32(UInt32(bitPattern: x.1))
            s.u32(UInt32(bitPattern: y.0)); s.u32(UInt32(bitPattern: y.1))
            s.u16(w); s.u16(h)
            return s.bytes
        }
        let t: Int64 = 1_700_000_000_000_000
        let syn = { (time: Int64) in event(time, .synchronization, SynchronizationCode.report, 0) }
        let mtTap = event(t, .absolute, AbsoluteAxisCode.multitouchSlot, 0) + event(t, .absolute, AbsoluteAxisCode.multitouchTrackingID, 7)
            + event(t, .absolute, AbsoluteAxisCode.multitouchPositionX, 2048) + event(t, .absolute, AbsoluteAxisCode.multitouchPositionY, 1024)
            + event(t, .key, KeyCode.buttonTouch.rawValue, 1) + syn(t)
            + event(t + 80_000, .absolute, AbsoluteAxisCode.multitouchTrackingID, -1) + event(t + 80_000, .key, KeyCode.buttonTouch.rawValue, 0)
            + syn(t + 80_000)
        let stTap = event(t, .absolute, AbsoluteAxisCode.x, 400) + event(t, .absolute, AbsoluteAxisCode.y, 240)
            + event(t, .key, KeyCode.buttonTouch.rawValue, 1) + syn(t) + event(t + 50_000, .key, KeyCode.buttonTouch.rawValue, 0) + syn(t + 50_000)
        let twoFingers = event(t, .absolute, AbsoluteAxisCode.multitouchSlot, 0) + event(t, .absolute, AbsoluteAxisCode.multitouchTrackingID, 1)
            + event(t, .absolute, AbsoluteAxisCode.multitouchPositionX, 100) + event(t, .absolute, AbsoluteAxisCode.multitouchPositionY, 100)
            + event(t, .absolute, AbsoluteAxisCode.multitouchSlot, 1) + event(t, .absolute, AbsoluteAxisCode.multitouchTrackingID, 2)
            + event(t, .absolute, AbsoluteAxisCode.multitouchPositionX, 3000) + event(t, .absolute, AbsoluteAxisCode.multitouchPositionY, 3000)
            + syn(t) + event(t + 90_000, .absolute, AbsoluteAxisCode.multitouchTrackingID, -1) + syn(t + 90_000)
        let keys = event(t, .key, KeyCode.playPause.rawValue, 1) + syn(t) + event(t, .key, KeyCode.playPause.rawValue, 0) + syn(t)
            + event(t, .key, KeyCode.enter.rawValue, 1) + event(t, .key, KeyCode.enter.rawValue, 2) + syn(t)
        let dropped = event(t, .key, KeyCode.buttonTouch.rawValue, 1) + event(t, .synchronization, SynchronizationCode.dropped, 0)
            + event(t, .absolute, AbsoluteAxisCode.x, 5) + syn(t) + syn(t)
        return [
            ("multitouch-tap", header(0x0D, (0, 4095), (0, 4095)) + mtTap),
            ("multitouch-tap-calibrated", header(0xED, (0, 4095), (0, 4095), 1280, 720) + mtTap),
            ("single-touch-tap", header(0x09, (0, 799), (0, 479)) + stTap),
            ("usb-panel-left-button", header(0x0A, (0, 32767), (0, 32767)) + stTap),
            ("two-fingers", header(0x0D, (0, 4095), (0, 4095)) + twoFingers),
            ("media-keys", header(0x00, (0, 0), (0, 0)) + keys),
            ("sync-dropped", header(0x09, (0, 799), (0, 479)) + dropped),
            ("inverted-range", header(0x09, (799, 0), (-5, -5)) + stTap),
            ("extreme-range", header(0x0D, (Int32.min, Int32.max), (Int32.min, Int32.max), 65535, 65535) + mtTap),
        ]
    }
}
