/// How input devices behave: from the configuration file.
public struct InputSettings: Equatable {
    public var confirmKey: KeyCode
    public var calibration: TouchCalibration
    public var tapLimits: TapLimits

    public init(confirmKey: KeyCode = .enter, calibration: TouchCalibration = TouchCalibration(),
                tapLimits: TapLimits = TapLimits()) {
        self.confirmKey = confirmKey
        self.calibration = calibration
        self.tapLimits = tapLimits
    }
}

/// One input device's bytes in, the head unit's actions out: evdev
/// decoding, touch tracking for touchscreens, key mapping for keys.
///
///     var device = InputInterpreter(capabilities: caps, settings: s, panelWidth: 800, panelHeight: 480)
///     for action in device.receive(bytesReadFromTheDevice) { ... }
public struct InputInterpreter {
    public let capabilities: InputCapabilities
    private var decoder = EvdevDecoder()
    private var touch: TouchTracker?
    private var keys: KeyMapper

    public init(capabilities: InputCapabilities, settings: InputSettings = InputSettings(),
                panelWidth: Int, panelHeight: Int) {
        self.capabilities = capabilities
        keys = KeyMapper(confirmKey: settings.confirmKey)
        if let axes = capabilities.touchscreen {
            touch = TouchTracker(axes: axes, panelWidth: panelWidth, panelHeight: panelHeight,
                                 calibration: settings.calibration, limits: settings.tapLimits)
        }
    }

    public var isTouchscreen: Bool { touch != nil }

    /// The panel the touch surface covers, in physical pixels.
    public mutating func setPanelSize(width: Int, height: Int) {
        touch?.panelWidth = max(width, 1)
        touch?.panelHeight = max(height, 1)
    }

    /// Bytes as read from the device, in any pieces.
    public mutating func receive(_ bytes: [UInt8]) -> [InputAction] {
        var actions: [InputAction] = []
        for event in decoder.decode(bytes) {
            if let a = handle(event) { actions.append(a) }
        }
        return actions
    }

    public mutating func handle(_ event: InputEvent) -> InputAction? {
        if touch != nil {
            if let p = touch?.handle(event) { return .tap(p) }
            // The touch key and the digitizer's tool buttons (BTN_TOOL_*,
            // BTN_TOUCH, BTN_STYLUS: 0x140-0x14f) belong to the touch surface.
            if event.type == .key && (event.code == touch?.axes.touchKey.rawValue || (0x140...0x14F).contains(event.code)) {
                return nil
            }
        }
        return keys.action(for: event)
    }
}
