import BluetoothCore
import JSON

/// Reads the canonical UUID text form, 8-4-4-4-12 hex digits, either case.
func uuidFromText(_ text: String) -> BluetoothUUID? {
    let utf8 = Array(text.utf8)
    guard utf8.count == 36 else { return nil }
    for (i, c) in utf8.enumerated() {
        if i == 8 || i == 13 || i == 18 || i == 23 {
            guard c == 0x2D else { return nil }
        } else {
            let isHex = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
            guard isHex else { return nil }
        }
    }
    return BluetoothUUID(text)
}

extension JSONValue {
    func uuid(_ key: String) throws(JSONError) -> BluetoothUUID {
        guard let uuid = try optionalUUID(key) else { throw .missing(key: key) }
        return uuid
    }

    func optionalUUID(_ key: String) throws(JSONError) -> BluetoothUUID? {
        guard let text = try optionalString(key) else { return nil }
        guard let uuid = uuidFromText(text) else { throw .invalidValue(key: key, reason: "is not a UUID") }
        return uuid
    }
}

/// One key exchange (a prepare and its activate share it).
public struct ExchangeID: Hashable, CustomStringConvertible {
    public let uuid: BluetoothUUID
    public init(_ uuid: BluetoothUUID) { self.uuid = uuid }
    /// Uppercase, as the phone's UUID.uuidString writes it.
    public var description: String { uuid.description }
}

/// What the head unit names in the receipt for a key packet or envelope.
public struct ReceiptID: Hashable, CustomStringConvertible {
    public let uuid: BluetoothUUID
    public init(_ uuid: BluetoothUUID) { self.uuid = uuid }
    public var description: String { uuid.description }
}

/// A security session of the phone: with the generation's exporter secret
/// it selects the per-direction AES key.
public struct SessionID: Hashable, CustomStringConvertible {
    public let uuid: BluetoothUUID
    public init(_ uuid: BluetoothUUID) { self.uuid = uuid }
    /// Uppercase text: what goes into the export context.
    public var description: String { uuid.description }
}

/// The id of a reverse command the head unit sends.
public struct CommandID: Hashable, CustomStringConvertible {
    public let uuid: BluetoothUUID
    public init(_ uuid: BluetoothUUID) { self.uuid = uuid }

    /// A version 4 UUID from 16 random bytes.
    public init(random bytes: [UInt8]) {
        var b = bytes + [UInt8](repeating: 0, count: max(0, 16 - bytes.count))
        b[6] = b[6] & 0x0F | 0x40
        b[8] = b[8] & 0x3F | 0x80
        uuid = BluetoothUUID(bigEndian: b[0..<16])
    }

    public var description: String { uuid.description }
}

/// The id of an event from the phone, repeated as `replyTo` in commands
/// about it. Kept as the text received: the head unit only echoes it.
public struct EventID: Hashable, CustomStringConvertible {
    public let text: String
    public init(_ text: String) { self.text = text }
    public var description: String { text }
}
