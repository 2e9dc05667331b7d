/// Codes of EV_ABS events used by touchscreens.
public enum AbsoluteAxisCode {
    public static let x: UInt16 = 0x00
    public static let y: UInt16 = 0x01
    /// Multitouch protocol B: which contact slot the following events describe.
    public static let multitouchSlot: UInt16 = 0x2F
    public static let multitouchPositionX: UInt16 = 0x35
    public static let multitouchPositionY: UInt16 = 0x36
    /// A contact's identity; -1 ends the contact in its slot.
    public static let multitouchTrackingID: UInt16 = 0x39
    /// Highest axis code (ABS_MAX).
    public static let maximum: UInt16 = 0x3F
}

/// The range an absolute axis reports, as EVIOCGABS gives it
/// (`struct input_absinfo` minimum and maximum).
public struct AxisRange: Equatable, CustomStringConvertible {
    public var minimum: Int32
    public var maximum: Int32

    public init(minimum: Int32, maximum: Int32) {
        self.minimum = minimum
        self.maximum = maximum
    }

    /// A range that cannot be scaled (a driver reporting min == max).
    public var isUsable: Bool { maximum > minimum }

    /// The distance of `value` from the minimum, clamped to the range
    /// (panels report slightly outside it near the edges), and the span.
    func offset(_ value: Int32) -> (offset: Int64, span: Int64) {
        guard isUsable else { return (0, 1) }
        let span = Int64(maximum) - Int64(minimum)
        return (min(max(Int64(value) - Int64(minimum), 0), span), span)
    }

    public var description: String { "\(minimum)...\(maximum)" }
}
