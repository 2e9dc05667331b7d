import ATT
import BluetoothCore
import GATT

/// Where the NotifBridge characteristics landed in a database, so the link
/// layer can tell which characteristic a write is for and where to indicate.
public struct NotifBridgeHandles: Equatable {
    public let service: AttributeHandle
    public let keyExchange: AttributeHandle
    public let notifications: AttributeHandle
    public let receipts: AttributeHandle
    /// The CCCD of `receipts`: the phone writes 0x0002 there before anything else.
    public let receiptsConfiguration: AttributeHandle

    /// The characteristic whose value handle this is, if it takes writes.
    public func characteristic(forValue handle: AttributeHandle) -> NotifBridgeCharacteristic? {
        if handle == keyExchange { return .keyExchange }
        if handle == notifications { return .notifications }
        return nil
    }
}

extension GATTDatabase {
    /// Adds the NotifBridge service: two write characteristics (with and
    /// without response, long values through prepared writes) and the
    /// indicate + read characteristic with its CCCD.
    @discardableResult
    public func addNotifBridgeService() -> NotifBridgeHandles {
        let service = addService(NotifBridgeUUIDs.service)
        let writable: CharacteristicProperties = [.write, .writeWithoutResponse]
        // The key packets carry the seed of a private key: nothing of this
        // service is taken or given on a link that is not encrypted.
        let keyExchange = addCharacteristic(NotifBridgeUUIDs.keyExchange, properties: writable, permissions: [.write, .encrypted])
        let notifications = addCharacteristic(NotifBridgeUUIDs.notifications, properties: writable, permissions: [.write, .encrypted])
        let receipts = addCharacteristic(NotifBridgeUUIDs.receipts, properties: [.indicate, .read], permissions: [.read, .encrypted])
        return NotifBridgeHandles(service: service, keyExchange: keyExchange, notifications: notifications,
                                  receipts: receipts, receiptsConfiguration: AttributeHandle(receipts.value &+ 1))
    }
}
