import BluetoothCore
import GATT
import SMP

/// A bonded client's CCCDs of the head unit's GATT server, kept across
/// connections (Core Vol 3 Part G 3.3.3.3), and Service Changed for a
/// bonded client that comes back to a changed database (2.5.2).
extension HeadUnitCore {
    /// The Database Hash of the head unit's database (Core Vol 3 Part G
    /// 7.3), computed here: the database itself offers no Database Hash
    /// characteristic. Once, at start: the database never changes after.
    static func fingerprint(of database: GATTDatabase) -> [UInt8] {
        (try? SMPCrypto.aesCMAC(key: [UInt8](repeating: 0, count: 16), message: database.databaseHashInput())) ?? []
    }

    /// The link is encrypted with its bond: its client gets back the CCCDs
    /// it had, and is told with Service Changed if the database changed
    /// since it last saw it and it asked for that. From now on its CCCD
    /// changes are stored.
    func restoreClientState(of link: PhoneLink) {
        guard let server = link.server, bond(for: server) != nil else { return }
        link.clientStateBond = server
        if let saved = clientStates[server] {
            link.bearer.server.restore(saved.configurations)
            if saved.databaseHash != databaseFingerprint {
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
        guard let server = link.clientStateBond, bond(for: server) != nil else { return }
        let fingerprint = databaseFingerprint
        // A client not yet aware of a change keeps the hash it knew, so it
        // is told again next time if this link goes before it confirms.
        let known = link.bearer.server.isChangeAware ? fingerprint : (clientStates[server]?.databaseHash ?? fingerprint)
        let state = BondedClientState(configurations: link.bearer.server.storedConfigurations, databaseHash: known)
        guard clientStates[server] != state else { return }
        // Nothing to keep for a client that never subscribed: no file.
        if clientStates[server] == nil && state.configurations.isEmpty { return }
        clientStates[server] = state
        write(.clientState(state.encoded(), server: server))
    }

    /// A new pairing with that bond key: the client's state starts empty
    /// (the phone that paired again subscribes again), and a file kept
    /// for the old bond is overwritten, never given to the new one.
    func clientStateRestarts(_ server: String) {
        guard clientStates[server] != nil else { return }
        let empty = BondedClientState(configurations: [], databaseHash: databaseFingerprint)
        clientStates[server] = empty
        write(.clientState(empty.encoded(), server: server))
    }

    /// The stored client states that decode and belong to a bond; the
    /// others are reported and dropped (the client subscribes again).
    static func decodeClientStates(_ stored: [String: [UInt8]], bonds: [String: BondRecord]) -> [String: BondedClientState] {
        var out: [String: BondedClientState] = [:]
        for (server, bytes) in stored {
            guard bonds[server] != nil else {
                Log.info("gatt", "client state of \(server) without a bond; ignored")
                continue
            }
            do {
                out[server] = try BondedClientState.decode(bytes)
            } catch {
                Log.warning("gatt", "client state of \(server) is damaged (\(error)); its subscriptions start empty")
            }
        }
        return out
    }
}
