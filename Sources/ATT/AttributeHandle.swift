import BluetoothCore

/// The 16-bit handle that addresses one attribute in a server's database.
/// 0x0000 is reserved and never names an attribute.
public struct AttributeHandle: Hashable, Comparable, CustomStringConvertible {
    public let value: UInt16

    public init(_ value: UInt16) { self.value = value }

    public static let invalid = AttributeHandle(0x0000)
    public static let first = AttributeHandle(0x0001)
    public static let last = AttributeHandle(0xFFFF)

    public var isValid: Bool { value != 0 }

    /// The handle after this one, or nil at the end of the handle space.
    public var next: AttributeHandle? { value == 0xFFFF ? nil : AttributeHandle(value + 1) }

    public static func < (a: AttributeHandle, b: AttributeHandle) -> Bool { a.value < b.value }

    public var description: String { "0x" + hex(value, digits: 4) }
}

/// A start/end pair as carried in range requests. It is kept exactly as
/// received: a server must answer an inverted or zero range with Invalid
/// Handle, so decoding does not reject it.
public struct AttributeHandleRange: Hashable, CustomStringConvertible {
    public let start: AttributeHandle
    public let end: AttributeHandle

    public init(start: AttributeHandle, end: AttributeHandle) {
        self.start = start
        self.end = end
    }

    public init(_ start: UInt16, _ end: UInt16) {
        self.init(start: AttributeHandle(start), end: AttributeHandle(end))
    }

    public static let all = AttributeHandleRange(start: .first, end: .last)

    /// Valid per ATT: a non-zero start not after the end.
    public var isValid: Bool { start.isValid && start <= end }

    public func contains(_ handle: AttributeHandle) -> Bool { start <= handle && handle <= end }

    public var description: String { start.description + "..." + end.description }
}
