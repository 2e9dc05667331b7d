import CLinux

/// Why an output could not be opened or used, worded for the log and the
/// `error` event.
public enum DisplayError: Error, Equatable, CustomStringConvertible {
    case badSpec(String)
    case noDevice(path: String)
    case permissionDenied(path: String)
    /// The file exists but is not a KMS card / framebuffer.
    case notADisplay(path: String, detail: String)
    case noConnectedDisplay(path: String)
    case selection(String)
    case unsupportedFormat(String)
    case system(what: String, errno: Int32)
    case png(String)

    public var description: String {
        switch self {
        case .badSpec(let s): return s
        case .noDevice(let p): return "no display device \(p)"
        case .permissionDenied(let p):
            return "permission denied opening \(p): run as root or add the user to the video group"
        case .notADisplay(let p, let d): return "\(p) is not a usable display: \(d)"
        case .noConnectedDisplay(let p): return "no display connected to \(p); will retry"
        case .selection(let s): return s
        case .unsupportedFormat(let s): return "unsupported pixel format: \(s)"
        case .system(let what, let e): return "\(what) failed: \(errnoText(e)) (errno \(e))"
        case .png(let s): return "PNG: \(s)"
        }
    }

    /// Worth retrying later: the display may be plugged in or appear.
    public var isTransient: Bool {
        switch self {
        case .noConnectedDisplay, .noDevice: return true
        default: return false
        }
    }

    /// The error for a failed open(2) of `path`.
    static func opening(_ path: String, errno e: Int32) -> DisplayError {
        switch e {
        case ENOENT, ENODEV, ENXIO: return .noDevice(path: path)
        case EACCES, EPERM: return .permissionDenied(path: path)
        default: return .system(what: "open \(path)", errno: e)
        }
    }
}

func errnoText(_ e: Int32) -> String {
    guard let s = strerror(e) else { return "error \(e)" }
    return String(cString: s)
}
