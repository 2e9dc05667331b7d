/// What a device says it can report, gathered by the platform with the
/// EVIOCGBIT, EVIOCGPROP and EVIOCGABS ioctls; classified here so the rules
/// are tested without devices.
public struct InputCapabilities: Equatable {
    /// EVIOCGNAME, for log lines.
    public var name: String
    /// Keys and buttons (EVIOCGBIT(EV_KEY)).
    public var keys: Set<KeyCode>
    /// Absolute axes with their ranges (EVIOCGBIT(EV_ABS), then EVIOCGABS each).
    public var axes: [UInt16: AxisRange]
    /// INPUT_PROP_DIRECT: the surface is on the screen (a touchscreen).
    public var direct: Bool
    /// INPUT_PROP_POINTER: moves a pointer (a touchpad, not a touchscreen).
    public var pointer: Bool

    public init(name: String = "", keys: Set<KeyCode> = [], axes: [UInt16: AxisRange] = [:],
                direct: Bool = false, pointer: Bool = false) {
        self.name = name
        self.keys = keys
        self.axes = axes
        self.direct = direct
        self.pointer = pointer
    }

    /// INPUT_PROP_* bit numbers (EVIOCGPROP).
    public static let propertyPointer = 0
    public static let propertyDirect = 1

    /// The touchscreen axes, or nil when this is no touchscreen. Multitouch
    /// positions are preferred: drivers that report both keep the
    /// single-touch ones only for old readers.
    public var touchscreen: TouchscreenAxes? {
        let touchKey: KeyCode
        if keys.contains(.buttonTouch) {
            touchKey = .buttonTouch
        } else if direct && keys.contains(.buttonLeft) {
            // Some USB panels present their contact as a mouse button.
            touchKey = .buttonLeft
        } else if direct {
            touchKey = .buttonTouch // contacts come from tracking IDs alone
        } else {
            return nil
        }
        guard direct || !pointer else { return nil }
        if let x = axes[AbsoluteAxisCode.multitouchPositionX], let y = axes[AbsoluteAxisCode.multitouchPositionY],
           x.isUsable, y.isUsable {
            return TouchscreenAxes(x: x, y: y, multitouch: true, touchKey: touchKey)
        }
        if let x = axes[AbsoluteAxisCode.x], let y = axes[AbsoluteAxisCode.y], x.isUsable, y.isUsable {
            return TouchscreenAxes(x: x, y: y, multitouch: false, touchKey: touchKey)
        }
        return nil
    }

    /// Whether the device has a key the head unit uses (media keys or the
    /// confirm key). Keyboards qualify; that is fine.
    public func hasKeys(confirmKey: KeyCode) -> Bool {
        keys.contains(confirmKey) || KeyMapper.mediaKeys.keys.contains(where: { keys.contains($0) })
    }

    /// Worth opening: a touchscreen or something with keys the head unit uses.
    public func isUseful(confirmKey: KeyCode) -> Bool {
        touchscreen != nil || hasKeys(confirmKey: confirmKey)
    }

    /// The set bits of a kernel bitmask (EVIOCGBIT and EVIOCGPROP fill
    /// arrays of longs; on little-endian machines that is simply bit n of
    /// byte n / 8).
    public static func bits(inMask bytes: [UInt8]) -> [Int] {
        var out: [Int] = []
        for (index, byte) in bytes.enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (1 << UInt8(bit)) != 0 { out.append(index * 8 + bit) }
        }
        return out
    }
}

/// The axes a touchscreen reports contacts on.
public struct TouchscreenAxes: Equatable {
    public var x: AxisRange
    public var y: AxisRange
    /// Positions come as ABS_MT_POSITION_X/Y per slot (protocol B); else ABS_X/Y.
    public var multitouch: Bool
    /// The key that says a finger is down (BTN_TOUCH, or BTN_LEFT on some panels).
    public var touchKey: KeyCode

    public init(x: AxisRange, y: AxisRange, multitouch: Bool, touchKey: KeyCode = .buttonTouch) {
        self.x = x
        self.y = y
        self.multitouch = multitouch
        self.touchKey = touchKey
    }
}
