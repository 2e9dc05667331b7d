public enum LogLevel: Int, Comparable {
    case error = 0, warning, info, debug, trace

    public static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }

    public var name: String {
        switch self {
        case .error: return "error"
        case .warning: return "warn"
        case .info: return "info"
        case .debug: return "debug"
        case .trace: return "trace"
        }
    }

    public init?(name: String) {
        switch name {
        case "error": self = .error
        case "warn", "warning": self = .warning
        case "info": self = .info
        case "debug": self = .debug
        case "trace": self = .trace
        default: return nil
        }
    }
}

/// Process-wide logging. Layers log through here; the platform installs the
/// sink (stderr, the serial console) and the level. Messages are autoclosures
/// so a filtered-out line costs nothing to build.
public enum Log {
    nonisolated(unsafe) public static var level: LogLevel = .info
    nonisolated(unsafe) public static var sink: (LogLevel, StaticString, String) -> Void = { level, subsystem, message in
        print("[\(level.name)] \(subsystem): \(message)")
    }

    @inline(__always)
    public static func enabled(_ l: LogLevel) -> Bool { l <= level }

    public static func error(_ subsystem: StaticString, _ message: @autoclosure () -> String) {
        if enabled(.error) { sink(.error, subsystem, message()) }
    }
    public static func warning(_ subsystem: StaticString, _ message: @autoclosure () -> String) {
        if enabled(.warning) { sink(.warning, subsystem, message()) }
    }
    public static func info(_ subsystem: StaticString, _ message: @autoclosure () -> String) {
        if enabled(.info) { sink(.info, subsystem, message()) }
    }
    public static func debug(_ subsystem: StaticString, _ message: @autoclosure () -> String) {
        if enabled(.debug) { sink(.debug, subsystem, message()) }
    }
    public static func trace(_ subsystem: StaticString, _ message: @autoclosure () -> String) {
        if enabled(.trace) { sink(.trace, subsystem, message()) }
    }
}
