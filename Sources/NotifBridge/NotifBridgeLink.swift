import ATT
import BluetoothCore
import GATT

/// Joins the receiver to the GATT bearer of the phone's link, so the
/// peripheral role only has to call `pump` after each ATT PDU and timeout:
/// the phone's writes and its subscription go into the receiver, the
/// receiver's indications onto the bearer (one at a time, as ATT wants),
/// and the rest (key files to store, notification events) comes back.
/// Writes are taken from the bearer as a whole: the NotifBridge
/// characteristics are the only ones in the database that take them.
public final class NotifBridgeLink<Crypto: NotifBridgeCryptography> {
    public let handles: NotifBridgeHandles
    public let receiver: NotifBridgeReceiver<Crypto>

    public init(handles: NotifBridgeHandles, receiver: NotifBridgeReceiver<Crypto>) {
        self.handles = handles
        self.receiver = receiver
    }

    /// Returns the outputs that are not indications, in order.
    public func pump(_ bearer: GATTBearer, now: Instant) -> [NotifBridgeOutput] {
        if bearer.mtu != receiver.mtu { receiver.mtuChanged(bearer.mtu) }
        var others: [NotifBridgeOutput] = []
        while true {
            var moved = false
            // The CCCD first: the phone subscribes before it writes.
            let wantsIndications = bearer.server.clientConfiguration(forValue: handles.receipts).contains(.indication)
            if wantsIndications != receiver.isSubscribed {
                if wantsIndications { receiver.subscribed(now: now) } else { receiver.unsubscribed() }
                moved = true
            }
            while let write = bearer.server.pollWrite() {
                moved = true
                guard let characteristic = handles.characteristic(forValue: write.handle) else {
                    Log.info("notifbridge", "write to \(write.handle) is not for NotifBridge: dropped")
                    continue
                }
                receiver.written(characteristic, value: write.value, now: now)
            }
            while let output = receiver.pollOutput() {
                moved = true
                if case .indicate(let value) = output {
                    if !bearer.indicate(value, at: handles.receipts) {
                        Log.info("notifbridge", "indication dropped: the phone unsubscribed")
                    }
                } else {
                    others.append(output)
                }
            }
            if !moved { return others }
        }
    }
}
