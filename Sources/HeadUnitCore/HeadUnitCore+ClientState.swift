import BluetoothCore
import GATT

/// A bonded client's CCCDs of the head unit's GATT server, kept across
/// connections (Core Vol 3 Part G 3.3.3.3), and Service Changed for a
/// bonded client that comes back to a changed database (2.5.2).
extension HeadUnitCore {
    /// The link is encrypted with its bond: its client gets back the CCCDs
    /// it had, and is told with Service Changed if the database changed
    /// since it last saw it and it asked for that. From now on its CCCD
    /// changes are stored.
    func restoreClientState(of link: PhoneLink) {
        guard let server = link.server, bond(for: server) != nil else { return }
        link.clientStateBond = server
        if let saved = kept.clientStates[server] {
            link.bearer.server.restore(saved.configurations)
            // A restored CCCD may subscribe NotifBridge's receipts without
            // an ATT PDU: its stage looks at the link in this round.
            link.attReceived = true
            if saved.databaseHash != kept.databaseFingerprint {
                link.bearer.server.isChangeAware = false
                if saved.wantsServiceChanged {
                    Log.info("gatt", "the database changed since \(server) last saw it: Service Changed")
                    link.bearer.indicateServiceChanged()
                }
            }
            Log.info("gatt", "\(saved.configurations.count) client configuration(s) of \(server) restored")
        }
        storeClientState(of: link)
    }

    /// Stores the link's client state under its bond, if it changed.
    func storeClientState(of link: PhoneLink) {
        guard let bond = link.clientStateBond else { return }
        let gattServer = link.bearer.server
        if let change = kept.clientStateChanged(gattServer.storedConfigurations, changeAware: gattServer.isChangeAware, of: bond) {
            write(change)
        }
    }
}
