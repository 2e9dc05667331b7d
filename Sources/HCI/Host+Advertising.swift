import BluetoothCore

/// Advertising and peripheral links: the owner's wishes go to the
/// `Advertiser`, whose commands the host sends one at a time and whose
/// results it feeds back (`CommandPurpose.advertiser`).
extension Host {
    /// Our identity as peripheral: advertising uses it as own address
    /// (type random). Set it before `start`, so LE Set Random Address goes
    /// out before any scan (controllers before 5.3 refuse it while scanning).
    /// Scanning and connecting as central keep the public address.
    public func setIdentityAddress(_ address: StaticRandomAddress) {
        advertiser.setIdentity(address)
        pumpAdvertiser()
    }

    /// Advertises `payload`, connectable: 20 ms for 30 s, then 152.5 ms.
    /// Paused while a phone's link to us is secure (`peripheralLinkSecured`),
    /// fast again when it leaves;
    /// kept through controller resets. A new payload replaces the old.
    public func startAdvertising(_ payload: AdvertisingPayload) {
        advertiser.start(payload, now: now)
        pumpAdvertiser()
    }

    /// Advertises `advertisement`: a set per payload where the controller
    /// has enough, its combined payload otherwise (see `Advertiser`).
    public func startAdvertising(_ advertisement: Advertisement) {
        advertiser.start(advertisement, now: now)
        pumpAdvertiser()
    }

    /// The slow interval at once, before the 30 s are up.
    public func slowAdvertising() {
        advertiser.slowDown()
        pumpAdvertiser()
    }

    public func stopAdvertising() {
        advertiser.stop()
        pumpAdvertiser()
    }

    /// Who may connect. `advertiser.filtering` then says whether the
    /// controller enforces it or the owner must refuse strangers itself.
    public func setAdvertisingAudience(_ audience: AdvertisingAudience) {
        advertiser.setAudience(audience)
        pumpAdvertiser()
    }

    /// The owner's word that a peripheral link is secure (encrypted with a
    /// bond, or paired): advertising pauses until that link goes. Until
    /// then a connection does not pause it, so that a device that connects
    /// and never pairs cannot keep the owner's phone out.
    public func peripheralLinkSecured(_ handle: ConnectionHandle) {
        guard connections[handle]?.link.role == .peripheral else { return }
        advertiser.peripheralSecured(handle)
        pumpAdvertiser()
    }

    /// Sends what the advertiser needs next, one command at a time, and
    /// pauses the scan while the resolving list changes. Each result comes
    /// back through `completed(.advertiser, _)`, which calls this again.
    func pumpAdvertiser() {
        guard isReady else { return }
        pauseScanningForLists(advertiser.needsScanningPaused)
        while let command = advertiser.nextCommand(now: now) {
            send(command, for: .advertiser)
        }
    }
}
