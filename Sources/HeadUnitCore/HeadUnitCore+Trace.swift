import ATT
import NotifBridge

/// What a btsnoop trace of this head unit must not show in clear.
extension HeadUnitCore {
    /// Value handles of the head unit's GATT server whose written values
    /// are key material: the NotifBridge key-exchange characteristic (its
    /// prepare packets carry the seed of a private key). `TraceRedaction`
    /// zeroes what is written there.
    public var secretAttributeHandles: Set<UInt16> {
        guard let notifBridge else { return [] }
        return [notifBridge.handles.keyExchange.value]
    }
}
