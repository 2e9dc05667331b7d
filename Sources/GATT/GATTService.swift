import ATT
import BluetoothCore

/// A service found on the peer: its UUID and the handles of its group.
public struct GATTService: Hashable, CustomStringConvertible {
    public let uuid: BluetoothUUID
    public let handles: AttributeHandleRange

    public init(uuid: BluetoothUUID, handles: AttributeHandleRange) {
        self.uuid = uuid
        self.handles = handles
    }

    public var description: String { "service " + uuid.description + " " + handles.description }
}
