/// One Linux evdev `struct input_event`, as the kernel hands it out on
/// `/dev/input/eventN` (see Documentation/input/input.rst).
public struct InputEvent: Equatable, CustomStringConvertible {
    /// The event's timestamp in microseconds. The kernel stamps events with
    /// CLOCK_REALTIME unless the reader asked for another clock
    /// (EVIOCSCLOCKID); only differences between stamps are used here.
    public var microseconds: Int64
    public var type: EventType
    public var code: UInt16
    /// 1 press, 0 release, 2 autorepeat for keys; the position for axes.
    public var value: Int32

    public init(microseconds: Int64 = 0, type: EventType, code: UInt16, value: Int32) {
        self.microseconds = microseconds
        self.type = type
        self.code = code
        self.value = value
    }

    public var description: String { "\(microseconds)us type \(type.rawValue) code \(code) value \(value)" }
}

/// The `type` field of an input event (linux/input-event-codes.h).
public struct EventType: Hashable {
    public let rawValue: UInt16
    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    /// Separates frames (SYN_REPORT) and tells of lost events (SYN_DROPPED).
    public static let synchronization = EventType(0x00)
    public static let key = EventType(0x01)
    public static let relative = EventType(0x02)
    public static let absolute = EventType(0x03)
    public static let miscellaneous = EventType(0x04)
}

/// Codes of EV_SYN events.
public enum SynchronizationCode {
    /// End of a frame: everything since the previous report happened at once.
    public static let report: UInt16 = 0
    /// Protocol A multitouch: end of one contact's data within a frame.
    public static let multitouchReport: UInt16 = 2
    /// The kernel's buffer overflowed and events were lost.
    public static let dropped: UInt16 = 3
}

/// How a key event's value reads.
public enum KeyValue {
    public static let release: Int32 = 0
    public static let press: Int32 = 1
    public static let autorepeat: Int32 = 2
}
