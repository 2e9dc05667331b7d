import ANCS
import GhostDrop
import HCI
import SMP

/// What the head unit kept across restarts, read by the shell from the
/// state directory and given to the core at start. The core keeps it in
/// memory from then on and reports each change as a `StateWrite`.
public struct StoredState {
    /// Our CLIENT NAME (docs/PROTOCOL.md §1), made once.
    public var clientName: String
    /// The SERVER NAME of the phone we are paired with, if any.
    public var rememberedServer: String?
    /// Bonds by SERVER NAME.
    public var bonds: [String: BondRecord]
    /// The head unit's own IRK, given to the phone in key distribution.
    public var localIRK: IdentityResolvingKey?
    /// App display names learned from the phone.
    public var appNames: AppNameCache
    /// The NotifBridge key ring as `KeyRing.encoded` wrote it (the key
    /// file), nil when there is none. Loaded and checked by the receiver.
    public var notifBridgeKeys: [UInt8]?
    /// The head unit's identity as an accessory, made once: the address it
    /// advertises from and gives the phone in pairing, so that the phone
    /// still knows it after a reboot. nil: the peripheral role is off.
    public var identityAddress: StaticRandomAddress?
    /// What the GATT server keeps for each bonded client (its CCCDs), as
    /// `BondedClientState.encoded()` wrote it, by the bond's key (the
    /// same as `bonds`). Decoded and checked by the core.
    public var clientStates: [String: [UInt8]] = [:]
    /// A GhostDrop transfer broken off: its resume state file and the
    /// SHA-256 of the incoming file's bytes that state says are written
    /// (the shell feeds them from disk in chunks; `StateWrite.ghostDrop`);
    /// nil when none.
    public var ghostDropResume: [UInt8]?
    public var ghostDropWritten: GhostDigest?
    /// Free bytes on the state partition at start (GhostDrop's free-space
    /// check; `HeadUnitCore.stateFreeBytes(_:)` updates it); nil: unknown.
    public var stateFreeBytes: Int64?

    public init(clientName: String, rememberedServer: String? = nil, bonds: [String: BondRecord] = [:],
                localIRK: IdentityResolvingKey? = nil, appNames: AppNameCache = AppNameCache(),
                notifBridgeKeys: [UInt8]? = nil, identityAddress: StaticRandomAddress? = nil) {
        self.clientName = clientName
        self.rememberedServer = rememberedServer
        self.bonds = bonds
        self.localIRK = localIRK
        self.appNames = appNames
        self.notifBridgeKeys = notifBridgeKeys
        self.identityAddress = identityAddress
    }
}

/// A change of the stored state for the shell to write out.
public enum StateWrite: Equatable {
    case rememberServer(String)
    case forgetServer
    case saveBond(BondRecord, server: String)
    /// Deletes the bond's GATT client state (`clientState`) too.
    case deleteBond(server: String)
    /// The GATT server's state for a bonded client (its CCCDs), replaced
    /// whole: `BondedClientState.encoded()`. Kept beside the bond, not in
    /// it: it changes with every subscription, and the bond's keys are
    /// then never rewritten for it.
    case clientState([UInt8], server: String)
    case appNames(AppNameCache)
    /// The NotifBridge key file, replaced whole. The shell answers with
    /// `HeadUnitCore.keysStored(ok:now:)` once it is written (or not):
    /// the receipts of the key packets wait for that answer.
    case notifBridgeKeys([UInt8])
    /// The file a GhostDrop transfer brings, and its resume state.
    case ghostDrop(GhostDropFileOp)
}
