import BluetoothCore

/// Everything one pairing procedure accumulates, from the Pairing Request
/// to the last distributed key. Dropped when the pairing ends either way.
struct PairingContext {
    /// The initiator's features (ours as initiator, the phone's as
    /// responder); `response` the responder's.
    let request: PairingFeatures
    /// The PDUs as sent and received: legacy c1 hashes them verbatim.
    let preq: [UInt8]
    var response: PairingFeatures? = nil
    var pres: [UInt8] = []

    var secureConnections = false
    /// Seen from our side: `.display` means we show the passkey.
    var selection = MethodSelection(method: .justWorks, passkeyRole: nil)
    var keySize: UInt8 = 16
    var passkey: Passkey? = nil

    // LE Secure Connections.
    var keyPair: P256KeyPair? = nil
    var peerPublicKey: P256PublicKey? = nil
    var dhKey: [UInt8] = []
    /// Na / Nai (SC) or Mrand (legacy).
    var localNonce: [UInt8] = []
    /// Nb / Nbi (SC) or Srand (legacy).
    var peerNonce: [UInt8] = []
    /// Cb / Cbi (SC) or Sconfirm (legacy).
    var peerConfirm: [UInt8] = []
    /// 0...19 during Passkey Entry.
    var passkeyRound = 0
    /// Responder: the phone's Ea, received before our user accepted the
    /// numeric comparison value.
    var earlyDHKeyCheck: [UInt8]? = nil
    var macKey: [UInt8] = []
    var secureConnectionsLTK: LongTermKey? = nil

    // LE legacy pairing.
    var temporaryKey: [UInt8] = []

    // Key distribution: the phone's keys in the order it sends them.
    var expectedKeys: [SMPCode] = []
    /// Our identity, once sent to the phone: it goes into the bond.
    var distributedIdentity: LocalIdentity? = nil
    /// Keys that arrived before the owner reported the encryption change
    /// (they are only ever sent on an encrypted link, so the event is late).
    var earlyKeys: [SMPPDU] = []
    var peerLTK: LongTermKey? = nil
    var peerEDIV: UInt16 = 0
    var peerRand: UInt64 = 0
    var peerIRK: IdentityResolvingKey? = nil
    var peerIdentityAddress: BluetoothAddress? = nil

    init(request: PairingFeatures, preq: [UInt8]) {
        self.request = request
        self.preq = preq
    }

    var bondingAgreed: Bool { request.authReq.bonding && (response?.authReq.bonding ?? false) }
}
