/// What the head unit shows about its phone, in the wording of the original
/// NavigationNotifier design (the screen, the console and the `state` event
/// all use it).
public enum PairingState: Equatable, CustomStringConvertible {
    /// Nothing remembered and not looking: waits for the user.
    case discover
    /// Looking for an acceptable phone.
    case discovering
    /// A link to a candidate phone is being set up or checked.
    case connecting(server: String?)
    case connected(server: String)
    /// A phone is remembered but not connected (the head unit keeps looking
    /// for it unless the user disconnected on purpose).
    case remembered(server: String)

    /// The `state` field of the `state` event.
    public var eventName: String {
        switch self {
        case .discover: return "discover"
        case .discovering: return "discovering"
        case .connecting: return "connecting"
        case .connected: return "connected"
        case .remembered: return "remembered"
        }
    }

    public var server: String? {
        switch self {
        case .discover, .discovering: return nil
        case .connecting(let s): return s
        case .connected(let s), .remembered(let s): return s
        }
    }

    public var isConnected: Bool {
        if case .connected = self { return true }
        return false
    }

    /// The words on screen.
    public var text: String {
        switch self {
        case .discover: return "Discover Server App"
        case .discovering: return "Discovering..."
        case .connecting(let s): return s.map { "Connecting to \($0)..." } ?? "Connecting..."
        case .connected(let s): return "Connected to server: \(s)"
        case .remembered(let s): return "Connect to \(s)"
        }
    }

    public var description: String { text }
}
