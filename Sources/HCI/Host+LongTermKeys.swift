import BluetoothCore

/// The answers to the controller's LTK requests on peripheral links.
extension Host {
    /// Answers `.longTermKeyRequest` on a peripheral link with the key
    /// (16 octets, least significant first); Encryption Change follows.
    public func replyToLongTermKeyRequest(_ handle: ConnectionHandle, ltk: [UInt8]) {
        guard connections[handle] != nil else {
            Log.debug("hci", "LTK for link \(handle), which is gone; dropped")
            return
        }
        guard ltk.count == 16 else {
            Log.error("hci", "LTK of \(ltk.count) octets for \(handle); refusing the request instead")
            return refuseLongTermKeyRequest(handle)
        }
        send(.leLongTermKeyRequestReply(handle, ltk: ltk), for: .longTermKeyReply(handle, negative: false))
    }

    /// No key for this peer: the controller refuses encryption and the
    /// phone learns it has to pair again.
    public func refuseLongTermKeyRequest(_ handle: ConnectionHandle) {
        guard connections[handle] != nil else { return }
        send(.leLongTermKeyRequestNegativeReply(handle), for: .longTermKeyReply(handle, negative: true))
    }
}
