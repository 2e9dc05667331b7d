import ANCS
import BluetoothCore
import GATT
import SMP

/// What the head unit keeps across restarts and changes while it runs:
/// the bonds by key (SERVER NAME, or `Accessory.bondKey` for a phone
/// paired from Settings), each bonded client's state of our GATT server,
/// the app names ANCS learned and our own IRK. Every change returns the
/// `StateWrite` the shell carries out; the core passes it on.
struct KeptState {
    private(set) var bonds: [String: BondRecord]
    /// The GATT server's state of each bonded client, by bond key.
    private(set) var clientStates: [String: BondedClientState]
    /// App names learned so far: each ANCS session starts with them.
    var appNames: AppNameCache
    let localIRK: IdentityResolvingKey?
    /// The Database Hash of the head unit's database (Core Vol 3 Part G
    /// 7.3), for bonded clients' Service Changed.
    let databaseFingerprint: [UInt8]

    init(_ stored: StoredState, database: GATTDatabase) {
        bonds = stored.bonds
        appNames = stored.appNames
        localIRK = stored.localIRK
        databaseFingerprint = KeptState.fingerprint(of: database)
        clientStates = KeptState.decodeClientStates(stored.clientStates, bonds: stored.bonds)
    }

    func bond(for server: String) -> BondRecord? { bonds[server] }

    /// Every bond, by key, in key order.
    var allBonds: [(server: String, bond: BondRecord)] {
        bonds.keys.sorted().compactMap { server in bonds[server].map { (server, $0) } }
    }

    /// A new pairing's bond, over any older one with that key. The client's
    /// state starts empty (the phone that paired again subscribes again),
    /// and a file kept for the old bond is overwritten, never given to the
    /// new one.
    mutating func save(_ bond: BondRecord, for server: String) -> [StateWrite] {
        bonds[server] = bond
        var out: [StateWrite] = []
        if clientStates[server] != nil {
            let empty = BondedClientState(configurations: [], databaseHash: databaseFingerprint)
            clientStates[server] = empty
            out.append(.clientState(empty.encoded(), server: server))
        }
        out.append(.saveBond(bond, server: server))
        return out
    }

    /// The bond and its client state go.
    mutating func delete(_ server: String) -> StateWrite {
        bonds[server] = nil
        clientStates[server] = nil
        return .deleteBond(server: server)
    }

    /// The client state of a bonded client now: the write when it changed.
    /// A client not yet aware of a change keeps the hash it knew, so it is
    /// told again next time if its link goes before it confirms.
    mutating func clientStateChanged(_ configurations: [StoredClientConfiguration], changeAware: Bool,
                                     of server: String) -> StateWrite? {
        guard bonds[server] != nil else { return nil }
        let known = changeAware ? databaseFingerprint : (clientStates[server]?.databaseHash ?? databaseFingerprint)
        let state = BondedClientState(configurations: configurations, databaseHash: known)
        guard clientStates[server] != state else { return nil }
        // Nothing to keep for a client that never subscribed: no file.
        if clientStates[server] == nil && state.configurations.isEmpty { return nil }
        clientStates[server] = state
        return .clientState(state.encoded(), server: server)
    }

    /// The Database Hash, computed here: the database itself offers no
    /// Database Hash characteristic. Once, at start: the database never
    /// changes after.
    static func fingerprint(of database: GATTDatabase) -> [UInt8] {
        (try? SMPCrypto.aesCMAC(key: [UInt8](repeating: 0, count: 16), message: database.databaseHashInput())) ?? []
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
