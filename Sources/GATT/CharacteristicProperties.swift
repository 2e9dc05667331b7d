/// The properties byte of a characteristic declaration (Core Vol 3 Part G 3.3.1.1).
public struct CharacteristicProperties: OptionSet, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let broadcast = CharacteristicProperties(rawValue: 0x01)
    public static let read = CharacteristicProperties(rawValue: 0x02)
    public static let writeWithoutResponse = CharacteristicProperties(rawValue: 0x04)
    public static let write = CharacteristicProperties(rawValue: 0x08)
    public static let notify = CharacteristicProperties(rawValue: 0x10)
    public static let indicate = CharacteristicProperties(rawValue: 0x20)
    public static let authenticatedSignedWrites = CharacteristicProperties(rawValue: 0x40)
    public static let extendedProperties = CharacteristicProperties(rawValue: 0x80)
}

/// The value of a Client Characteristic Configuration descriptor.
public struct ClientConfiguration: OptionSet, Hashable {
    public let rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public static let notification = ClientConfiguration(rawValue: 0x0001)
    public static let indication = ClientConfiguration(rawValue: 0x0002)

    public var bytes: [UInt8] { [UInt8(truncatingIfNeeded: rawValue), UInt8(truncatingIfNeeded: rawValue >> 8)] }
}
