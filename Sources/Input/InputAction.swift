/// What an input device asks the head unit to do.
public enum InputAction: Equatable, CustomStringConvertible {
    /// A finger tapped the panel here (physical panel pixels: turn it into
    /// screen coordinates with the display's rotation).
    case tap(TouchPoint)
    /// A media key: the core sends the phone the matching AMS remote command.
    case media(MediaCommand)
    /// The configured confirm key (accepts a Numeric Comparison value).
    case confirm
    /// Any other key pressed (not repeated, not released).
    case key(KeyCode)

    public var description: String {
        switch self {
        case .tap(let p): return "tap \(p)"
        case .media(let c): return "media \(c)"
        case .confirm: return "confirm"
        case .key(let k): return "key \(k)"
        }
    }
}
