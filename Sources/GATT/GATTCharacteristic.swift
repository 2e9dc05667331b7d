import ATT
import BluetoothCore

/// A characteristic found on the peer. `endHandle` is the last handle that
/// may hold one of its descriptors (the next declaration minus one, or the
/// end of the service).
public struct GATTCharacteristic: Hashable, CustomStringConvertible {
    public let uuid: BluetoothUUID
    public let declarationHandle: AttributeHandle
    public let valueHandle: AttributeHandle
    public let properties: CharacteristicProperties
    public let endHandle: AttributeHandle

    public init(uuid: BluetoothUUID, declarationHandle: AttributeHandle, valueHandle: AttributeHandle,
                properties: CharacteristicProperties, endHandle: AttributeHandle) {
        self.uuid = uuid
        self.declarationHandle = declarationHandle
        self.valueHandle = valueHandle
        self.properties = properties
        self.endHandle = endHandle
    }

    /// Where its descriptors live; nil when there is no room for any.
    public var descriptorRange: AttributeHandleRange? {
        guard let first = valueHandle.next, first <= endHandle else { return nil }
        return AttributeHandleRange(start: first, end: endHandle)
    }

    public var description: String { "characteristic " + uuid.description + " value " + valueHandle.description }
}
