import ATT
import BluetoothCore

/// What a client may do with an attribute of our database.
public struct AttributePermissions: OptionSet, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let read = AttributePermissions(rawValue: 0x01)
    public static let write = AttributePermissions(rawValue: 0x02)
    /// Read and written only over an encrypted link: a client on a plain
    /// link gets Insufficient Authentication, and iOS then pairs (or
    /// encrypts with its bond) and tries again.
    public static let encrypted = AttributePermissions(rawValue: 0x04)
}

/// One attribute of our GATT server's database.
public struct GATTAttribute {
    /// Attributes whose value is not a stored byte string.
    enum Kind {
        /// A primary or secondary service declaration and the last handle of its group.
        case service(end: AttributeHandle)
        case stored
        /// A CCCD: its value lives per connection. `allowed` says which bits
        /// the characteristic's properties permit.
        case clientConfiguration(allowed: ClientConfiguration)
        /// Client Supported Features: per connection.
        case clientSupportedFeatures
        /// Database Hash: computed from the database.
        case databaseHash
    }

    public let handle: AttributeHandle
    public let type: BluetoothUUID
    /// The stored value (declarations, static characteristic values).
    public internal(set) var value: [UInt8]
    public let permissions: AttributePermissions
    var kind: Kind

    var isServiceDeclaration: Bool {
        if case .service = kind { return true }
        return false
    }

    /// The last handle of the group this attribute starts (itself unless it
    /// declares a service).
    var groupEnd: AttributeHandle {
        if case .service(let end) = kind { return end }
        return handle
    }
}
