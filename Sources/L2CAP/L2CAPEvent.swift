import BluetoothCore

/// What the L2CAP layer hands to its owner. The owner drains these with
/// `L2CAPLayer.pollEvent()` after every input.
public enum L2CAPEvent: Hashable {
    /// A complete basic frame (header included) for HCI to fragment and send.
    case transmit(ConnectionHandle, [UInt8])
    /// An ATT PDU for the link's ATT bearer (GATT): the frame's payload
    /// where it lies in the frame HCI put together, not a copy of it (the
    /// ATT value is the one copy made from the frame).
    case att(ConnectionHandle, ArraySlice<UInt8>)
    /// An SMP PDU for the Security Manager.
    case smp(ConnectionHandle, [UInt8])
    /// The peripheral asked for new parameters and we accepted (the response
    /// is already queued): the host issues HCI LE Connection Update with them.
    case updateConnectionParameters(ConnectionHandle, ConnectionParameters)
}
