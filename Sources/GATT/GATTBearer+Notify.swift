import ATT
import BluetoothCore

extension GATTBearer {
    /// Notifies `value` (cut to ATT_MTU − 3) on a characteristic of our
    /// database, if the client enabled notifications in its CCCD. Nothing
    /// confirms a notification: it leaves with the link's next packets.
    /// Returns whether it was queued.
    @discardableResult
    public func notify(_ value: [UInt8], at valueHandle: AttributeHandle) -> Bool {
        guard !isClosed, server.clientConfiguration(forValue: valueHandle).contains(.notification) else { return false }
        let pdu = ATTPDU.handleValueNotification(valueHandle, value: Array(value.prefix(mtu - 3)))
        outbox.append(Outgoing(bytes: pdu.encode(), kind: .plain))
        return true
    }
}
