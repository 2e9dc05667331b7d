/// An iOS app's bundle identifier, e.g. `com.google.Maps`, as the phone
/// sent it in the AppIdentifier attribute.
public struct AppIdentifier: Hashable, CustomStringConvertible {
    public let value: String

    public init(_ value: String) { self.value = value }

    /// GetAppAttributes sends the identifier NUL-terminated, so one with a
    /// NUL inside (or an empty one) cannot be asked about.
    public var canBeSent: Bool {
        guard !value.utf8.isEmpty else { return false }
        for byte in value.utf8 where byte == 0 { return false }
        return true
    }

    public var description: String { value }
}
