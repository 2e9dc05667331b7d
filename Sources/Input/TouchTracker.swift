/// A point on the panel, in pixels of the physical panel (before any
/// rotation of the drawn image: the touch surface is glued to the panel).
public struct TouchPoint: Equatable, CustomStringConvertible {
    public var x: Int
    public var y: Int

    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    public var description: String { "(\(x), \(y))" }
}

/// How the touch surface is mounted relative to the panel. Cheap panels
/// often come with the touch layer turned or mirrored; installers fix that
/// here instead of in the kernel. Applied in this order: swap, then invert.
public struct TouchCalibration: Equatable {
    /// The touch surface's X runs along the panel's Y.
    public var swapAxes: Bool
    public var invertX: Bool
    public var invertY: Bool

    public init(swapAxes: Bool = false, invertX: Bool = false, invertY: Bool = false) {
        self.swapAxes = swapAxes
        self.invertX = invertX
        self.invertY = invertY
    }
}

/// What still counts as a tap.
public struct TapLimits: Equatable {
    /// Largest distance (panel pixels) the finger may wander from where it
    /// came down; nil chooses 1/16 of the panel's shorter side (at least 12).
    public var maximumMovement: Int?
    /// Longest press that is still a tap. Drivers in a moving car press
    /// slowly, so this is generous.
    public var maximumMilliseconds: Int64

    public init(maximumMovement: Int? = nil, maximumMilliseconds: Int64 = 1000) {
        self.maximumMovement = maximumMovement
        self.maximumMilliseconds = maximumMilliseconds
    }

    func movement(panelWidth: Int, panelHeight: Int) -> Int {
        maximumMovement ?? max(12, min(panelWidth, panelHeight) / 16)
    }
}

/// Follows the fingers on a touchscreen through its events and reports a
/// tap when one finger went down and up again within the tap limits.
/// Drags, long presses and gestures with a second finger are not taps.
///
/// Understands single-touch devices (ABS_X/ABS_Y with BTN_TOUCH) and the
/// multitouch slot protocol B (ABS_MT_SLOT, ABS_MT_TRACKING_ID,
/// ABS_MT_POSITION_X/Y); a frame ends with SYN_REPORT. Timing comes from the
/// events' own timestamps.
public struct TouchTracker {
    public var axes: TouchscreenAxes
    public var panelWidth: Int
    public var panelHeight: Int
    public var calibration: TouchCalibration
    public var limits: TapLimits

    private struct Slot {
        var trackingID: Int32?
        var x: Int32?
        var y: Int32?
    }

    private struct Gesture {
        var startTime: Int64
        var start: TouchPoint?
        var primarySlot: Int32
        var contacts = 1
        var moved = false
        var cancelled = false
    }

    /// Enough for any panel; a slot number beyond it is a broken report.
    static let maximumSlots: Int32 = 64

    private var slots: [Int32: Slot] = [:]
    private var currentSlot: Int32 = 0
    private var singleX: Int32?
    private var singleY: Int32?
    private var touchKeyDown = false
    private var gesture: Gesture?
    /// After SYN_DROPPED everything up to the next SYN_REPORT is unreliable.
    private var dropping = false

    public init(axes: TouchscreenAxes, panelWidth: Int, panelHeight: Int,
                calibration: TouchCalibration = TouchCalibration(), limits: TapLimits = TapLimits()) {
        self.axes = axes
        self.panelWidth = max(panelWidth, 1)
        self.panelHeight = max(panelHeight, 1)
        self.calibration = calibration
        self.limits = limits
    }

    /// Whether a finger is on the surface as of the last frame.
    public var isTouching: Bool { gesture != nil }

    /// Feeds one event; returns the tap a finished gesture made, if any.
    public mutating func handle(_ event: InputEvent) -> TouchPoint? {
        if event.type == .synchronization {
            switch event.code {
            case SynchronizationCode.report:
                if dropping {
                    dropping = false
                    resetAfterLoss()
                    return nil
                }
                return endOfFrame(time: event.microseconds)
            case SynchronizationCode.dropped:
                dropping = true
            default:
                break
            }
            return nil
        }
        if dropping { return nil }
        if event.type == .key {
            if event.code == axes.touchKey.rawValue && event.value != KeyValue.autorepeat {
                touchKeyDown = event.value == KeyValue.press
            }
        } else if event.type == .absolute {
            absolute(event.code, event.value)
        }
        return nil
    }

    private mutating func absolute(_ code: UInt16, _ value: Int32) {
        switch code {
        case AbsoluteAxisCode.x: singleX = value
        case AbsoluteAxisCode.y: singleY = value
        case AbsoluteAxisCode.multitouchSlot:
            currentSlot = value
        case AbsoluteAxisCode.multitouchTrackingID:
            guard validSlot else { return }
            // Positions stay: the kernel does not repeat an unchanged value
            // when the next contact in this slot starts at the same place.
            slots[currentSlot, default: Slot()].trackingID = value < 0 ? nil : value
        case AbsoluteAxisCode.multitouchPositionX:
            guard validSlot else { return }
            slots[currentSlot, default: Slot()].x = value
        case AbsoluteAxisCode.multitouchPositionY:
            guard validSlot else { return }
            slots[currentSlot, default: Slot()].y = value
        default:
            break
        }
    }

    private var validSlot: Bool { currentSlot >= 0 && currentSlot < TouchTracker.maximumSlots }

    private mutating func endOfFrame(time: Int64) -> TouchPoint? {
        let active = slots.filter { $0.value.trackingID != nil }.map { $0.key }.sorted()
        let touching = touchKeyDown || !active.isEmpty
        if touching {
            if gesture == nil {
                gesture = Gesture(startTime: time, start: nil, primarySlot: active.first ?? currentSlot)
            }
            guard var g = gesture else { return nil }
            g.contacts = max(g.contacts, active.count)
            // The first finger lifted while another stays: a two-finger gesture.
            if axes.multitouch && !active.isEmpty && !active.contains(g.primarySlot) { g.cancelled = true }
            if let p = position(slot: g.primarySlot) {
                if let s = g.start {
                    let slop = limits.movement(panelWidth: panelWidth, panelHeight: panelHeight)
                    let dx = p.x - s.x, dy = p.y - s.y
                    if dx * dx + dy * dy > slop * slop { g.moved = true }
                } else {
                    g.start = p
                }
            }
            gesture = g
            return nil
        }
        guard let g = gesture else { return nil }
        gesture = nil
        // Timestamps come from the device's stream: a wild pair must not trap
        // on overflow; it only means this was no tap.
        let (elapsed, overflow) = time.subtractingReportingOverflow(g.startTime)
        let held = overflow ? -1 : elapsed / 1000
        guard let start = g.start, !g.cancelled, !g.moved, g.contacts <= 1,
              held >= 0, held <= limits.maximumMilliseconds else { return nil }
        return start
    }

    private func position(slot: Int32) -> TouchPoint? {
        let rawX: Int32?, rawY: Int32?
        if axes.multitouch {
            rawX = slots[slot]?.x
            rawY = slots[slot]?.y
        } else {
            rawX = singleX
            rawY = singleY
        }
        guard let rx = rawX, let ry = rawY else { return nil }
        return panelPoint(rawX: rx, rawY: ry)
    }

    /// Scales raw axis values to panel pixels, swapping and mirroring as calibrated.
    public func panelPoint(rawX: Int32, rawY: Int32) -> TouchPoint {
        var fx = axes.x.offset(rawX)
        var fy = axes.y.offset(rawY)
        if calibration.swapAxes { swap(&fx, &fy) }
        if calibration.invertX { fx.offset = fx.span - fx.offset }
        if calibration.invertY { fy.offset = fy.span - fy.offset }
        // Rounded: a panel reporting in pixels maps onto itself exactly.
        func scaled(_ f: (offset: Int64, span: Int64), _ size: Int) -> Int {
            Int((f.offset * Int64(size - 1) * 2 + f.span) / (2 * f.span))
        }
        return TouchPoint(x: scaled(fx, panelWidth), y: scaled(fy, panelHeight))
    }

    private mutating func resetAfterLoss() {
        slots.removeAll()
        currentSlot = 0
        touchKeyDown = false
        gesture = nil
    }
}
