/// The controller's 12-bit handle for one LE link. HCI hands L2CAP complete
/// frames tagged with it; every layer above keys its per-link state by it.
public struct ConnectionHandle: Hashable, Comparable, CustomStringConvertible {
    public let value: UInt16

    public init(_ value: UInt16) { self.value = value & 0x0FFF }

    public static func < (a: ConnectionHandle, b: ConnectionHandle) -> Bool { a.value < b.value }

    public var description: String { "0x" + hex(value, digits: 4) }
}
