/// The phone's 32-bit handle for one iOS notification. Valid within one
/// ANCS session only: never carried over to the next.
public struct NotificationUID: Hashable, Comparable, CustomStringConvertible {
    public let value: UInt32

    public init(_ value: UInt32) { self.value = value }

    /// A UID the phone never hands out in practice; the liveness probe asks
    /// about it and expects "invalid parameter" back.
    public static let probe = NotificationUID(0xFFFF_FFFF)

    public static func < (a: NotificationUID, b: NotificationUID) -> Bool { a.value < b.value }

    public var description: String { "\(value)" }
}
