import Input

/// Builds the bytes a device would deliver, the way `evtest` shows them:
/// events with timestamps, frames closed by SYN_REPORT.
struct EventStream {
    var events: [InputEvent] = []
    var time: Int64 = 1_700_000_000_000_000 // a realistic CLOCK_REALTIME stamp

    mutating func wait(ms: Int64) { time += ms * 1000 }

    mutating func add(_ type: EventType, _ code: UInt16, _ value: Int32) {
        events.append(InputEvent(microseconds: time, type: type, code: code, value: value))
    }

    mutating func key(_ code: KeyCode, _ value: Int32) {
        add(.key, code.rawValue, value)
        sync()
    }

    mutating func sync() { add(.synchronization, SynchronizationCode.report, 0) }

    // Single-touch panel (ABS_X/ABS_Y + BTN_TOUCH).
    mutating func stDown(_ x: Int32, _ y: Int32) {
        add(.key, KeyCode.buttonTouch.rawValue, 1)
        add(.absolute, AbsoluteAxisCode.x, x)
        add(.absolute, AbsoluteAxisCode.y, y)
        sync()
    }

    mutating func stMove(_ x: Int32, _ y: Int32) {
        add(.absolute, AbsoluteAxisCode.x, x)
        add(.absolute, AbsoluteAxisCode.y, y)
        sync()
    }

    mutating func stUp() {
        add(.key, KeyCode.buttonTouch.rawValue, 0)
        sync()
    }

    // Multitouch protocol B, as the kernel's input-mt core writes it.
    mutating func mtDown(slot: Int32, id: Int32, _ x: Int32, _ y: Int32, first: Bool = true) {
        add(.absolute, AbsoluteAxisCode.multitouchSlot, slot)
        add(.absolute, AbsoluteAxisCode.multitouchTrackingID, id)
        add(.absolute, AbsoluteAxisCode.multitouchPositionX, x)
        add(.absolute, AbsoluteAxisCode.multitouchPositionY, y)
        if first {
            add(.key, KeyCode.buttonTouch.rawValue, 1)
            // Single-touch emulation that multitouch readers must ignore.
            add(.absolute, AbsoluteAxisCode.x, x)
            add(.absolute, AbsoluteAxisCode.y, y)
        }
        sync()
    }

    mutating func mtMove(slot: Int32, _ x: Int32, _ y: Int32) {
        add(.absolute, AbsoluteAxisCode.multitouchSlot, slot)
        add(.absolute, AbsoluteAxisCode.multitouchPositionX, x)
        add(.absolute, AbsoluteAxisCode.multitouchPositionY, y)
        sync()
    }

    mutating func mtUp(slot: Int32, last: Bool = true) {
        add(.absolute, AbsoluteAxisCode.multitouchSlot, slot)
        add(.absolute, AbsoluteAxisCode.multitouchTrackingID, -1)
        if last { add(.key, KeyCode.buttonTouch.rawValue, 0) }
        sync()
    }

    var bytes: [UInt8] { events.flatMap(EvdevDecoder.encode) }
}

/// A 4096x4096 resistive-style panel in front of an 800x480 display.
let stPanel = InputCapabilities(name: "ADS7846 Touchscreen", keys: [.buttonTouch],
                                axes: [AbsoluteAxisCode.x: AxisRange(minimum: 0, maximum: 4095),
                                       AbsoluteAxisCode.y: AxisRange(minimum: 0, maximum: 4095)])

/// A capacitive panel reporting in its own 800x480 coordinates, with slots.
let mtPanel = InputCapabilities(name: "ft5x06", keys: [.buttonTouch],
                                axes: [AbsoluteAxisCode.x: AxisRange(minimum: 0, maximum: 799),
                                       AbsoluteAxisCode.y: AxisRange(minimum: 0, maximum: 479),
                                       AbsoluteAxisCode.multitouchSlot: AxisRange(minimum: 0, maximum: 9),
                                       AbsoluteAxisCode.multitouchPositionX: AxisRange(minimum: 0, maximum: 799),
                                       AbsoluteAxisCode.multitouchPositionY: AxisRange(minimum: 0, maximum: 479),
                                       AbsoluteAxisCode.multitouchTrackingID: AxisRange(minimum: 0, maximum: 65535)],
                                direct: true)

let mediaKeyboard = InputCapabilities(name: "steering wheel adapter",
                                      keys: [.playPause, .nextSong, .previousSong, .volumeUp, .volumeDown, .enter])

func run(_ caps: InputCapabilities, _ stream: EventStream, settings: InputSettings = InputSettings()) -> [InputAction] {
    var device = InputInterpreter(capabilities: caps, settings: settings, panelWidth: 800, panelHeight: 480)
    return device.receive(stream.bytes)
}
