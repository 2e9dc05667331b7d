import BluetoothCore

/// Links, one `HostConnection` each: made on Connection Complete, changed
/// by the controller's events, and removed in one place (`linkGone`).
extension Host {
    public func disconnect(_ handle: ConnectionHandle, reason: HCIStatus = .remoteUserTerminated) {
        guard connections[handle] != nil else { return }
        send(.disconnect(handle, reason: reason))
    }

    /// LE (Enhanced) Connection Complete: the link is up, as central (our
    /// `connect`) or as peripheral (from our advertising).
    func connectionComplete(_ c: LEConnectionComplete) {
        if connectingTo != nil, c.role == .central { connectingTo = nil }
        guard c.status.isSuccess else {
            Log.info("hci", "connection to \(c.peer) not established: \(c.status)")
            emit(.connectionFailed(peer: c.peer, status: c.status))
            return
        }
        // As peripheral the controller advertised with our identity
        // when one is set; as central it uses the public address.
        let local = c.role == .peripheral ? (advertiser.identity?.address ?? controller.address) : controller.address
        let link = Link(handle: c.handle, role: c.role, peer: c.peer, localAddress: local,
                        peerResolvablePrivateAddress: c.peerResolvablePrivateAddress, interval: c.interval,
                        latency: c.latency, supervisionTimeout: c.supervisionTimeout)
        connections[c.handle] = HostConnection(link)
        Log.info("hci", "connected to \(c.peer) as \(c.role == .central ? "central" : "peripheral"), handle \(c.handle), interval \(c.interval)")
        requestLongPDUs(on: c.handle)
        if c.role == .peripheral {
            advertiser.peripheralConnected(c.handle)
            pumpAdvertiser()
        }
        emit(.connected(link))
    }

    /// Data Length Extension: asks the controller to send link-layer PDUs of
    /// up to 251 octets on a new link (the phone raises its own direction by
    /// itself, as iPhones do). A 231-byte ANCS answer then travels as one PDU
    /// instead of nine, and costs fewer radio events. Controllers without the
    /// feature keep 27 octets; a refusal changes nothing else.
    private func requestLongPDUs(on handle: ConnectionHandle) {
        guard controller.supportsDataLengthExtension, controller.supports(.leSetDataLength) else { return }
        // 2120 µs: 251 octets on the 1M PHY (Core spec Vol 6, Part B, 4.5.10).
        send(.leSetDataLength(handle, txOctets: 251, txTime: 2120), for: .dataLength(handle))
    }

    /// The one place a link ends: its value goes, with its queued packets
    /// and its partial frame, and its buffers in the controller return to
    /// the pool (the controller flushed them).
    func linkGone(_ handle: ConnectionHandle) {
        guard let gone = connections.removeValue(forKey: handle) else { return }
        aclCredits = min(controller.aclBufferCount, aclCredits + gone.aclInFlight)
        if gone.link.role == .peripheral {
            advertiser.peripheralDisconnected(handle, now: now)
            pumpAdvertiser()
        }
    }
}
