import BluetoothCore

/// What the Security Manager asks its owner to do or tells it, in order.
public enum SecurityManagerOutput {
    /// Send this SMP PDU on the link's L2CAP channel 0x0006.
    case send([UInt8])
    /// Show the passkey on screen (and emit the `passkey` event); the user
    /// types it on the phone. Nothing to answer.
    case displayPasskey(Passkey)
    /// The phone shows a passkey: ask the user to type it, then call
    /// `enterPasskey(_:now:)`.
    case requestPasskey
    /// Show the value with Yes/No; answer with `confirmNumericComparison(_:now:)`.
    case confirmNumericComparison(Passkey)
    /// Issue HCI LE Enable Encryption with this key (EDIV and Rand are zero
    /// for LE Secure Connections and a fresh STK), then report the outcome
    /// with `encryptionChanged` or `encryptionFailed`.
    case startEncryption(ltk: LongTermKey, ediv: UInt16, rand: UInt64)
    /// Pairing finished. When `outcome.bond` is set, persist it (it replaces
    /// any older bond with the same peer, in one save). As responder on a
    /// link that resolved to a bond, the new bond has that bond's identity.
    case paired(PairingOutcome)
    /// The link is encrypted and ready for ANCS/AMS.
    case encrypted(LinkSecurity)
    /// Pairing or encryption failed; the link stays up unless the owner
    /// decides otherwise.
    case failed(PairingFailure)
    /// The phone says it no longer has the keys of this bond (it answered
    /// encryption with PIN or Key Missing). Tell the user; do NOT delete
    /// the bond: anyone replaying the phone's address can say this. Pairing
    /// starts again by itself when the policy allows, and only its
    /// completion (`.paired`) replaces the bond.
    case peerLostKeys(BondRecord)
}

/// The result of a successful pairing.
public struct PairingOutcome: Equatable {
    public var method: PairingMethod
    public var secureConnections: Bool
    /// MITM protection (authenticated keys).
    public var mitm: Bool
    public var keySize: UInt8
    /// What to store; nil when either side did not ask for bonding.
    public var bond: BondRecord?
}

/// The security of an encrypted link.
public struct LinkSecurity: Equatable {
    public var keySize: UInt8
    public var authenticated: Bool
    public var secureConnections: Bool
    /// Encrypted with the keys of a stored (or just created) bond.
    public var bonded: Bool
}

/// Why pairing or encryption did not succeed.
public enum PairingFailure: Equatable, CustomStringConvertible {
    /// We aborted and told the phone with Pairing Failed.
    case local(PairingFailureReason)
    /// The phone sent Pairing Failed.
    case remote(PairingFailureReason)
    /// 30 s passed without progress. No more SMP on this link: pairing
    /// again needs a new connection.
    case timeout
    /// HCI reported this status for encryption (e.g. 0x3D MIC failure).
    case encryption(status: UInt8)
    /// The controller reported an encryption key shorter than allowed
    /// (KNOB), or no size at all (0): do not use the link. Checked for
    /// every encryption, started here or not.
    case keySizeTooSmall(UInt8)
    /// Pairing with this phone failed too often in a row: it is not tried
    /// again until the owner calls `PairingAttemptLimiter.reset`. Tell the
    /// user to remove the pairing on both sides.
    case tooManyAttempts
    /// Responder: the connection resolved to a bond, but the pairing made
    /// on it distributed another identity (this one). Someone who knew the
    /// passkey, not the bonded phone: no bond, and the link is not used.
    case otherIdentity(BluetoothAddress)

    public var description: String {
        switch self {
        case .local(let reason): return "aborted: " + reason.description
        case .remote(let reason): return "phone failed pairing: " + reason.description
        case .timeout: return "SMP timeout"
        case .encryption(let status): return "encryption failed, HCI status 0x" + hex(status, digits: 2)
        case .keySizeTooSmall(let size): return "encryption key size \(size) too small"
        case .tooManyAttempts: return "too many failed attempts"
        case .otherIdentity(let identity): return "paired as \(identity), not as the bonded phone it connected as"
        }
    }
}
