import ATT
import BluetoothCore

/// A descriptor (or any attribute) found by Find Information.
public struct GATTDescriptor: Hashable, CustomStringConvertible {
    public let uuid: BluetoothUUID
    public let handle: AttributeHandle

    public init(uuid: BluetoothUUID, handle: AttributeHandle) {
        self.uuid = uuid
        self.handle = handle
    }

    public var description: String { "descriptor " + uuid.description + " at " + handle.description }
}
