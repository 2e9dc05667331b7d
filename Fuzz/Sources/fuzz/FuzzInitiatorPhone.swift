import BluetoothCore
@testable import SMP

/// The phone's half of SMP as initiator (an iPhone pairing from Settings:
/// KeyboardDisplay, Secure Connections, MITM, bonding, identity keys both
/// ways), just enough to walk the head unit's Security Manager as
/// responder through real pairings. Key pair and nonces are fixed: a run
/// depends on its input only.
final class FuzzInitiatorPhone {
    let ioCapability: IOCapability
    let authReq: AuthenticationRequirements
    /// The passkey the user types (from `.displayPasskey`) or that this
    /// phone shows (the head unit's user types it).
    var passkey: UInt32 = 123_456
    /// The head unit's DHKey check came: the phone starts encryption.
    var readyToEncrypt = false

    private var request: PairingFeatures?
    private var response: PairingFeatures?
    private var peerKey: P256PublicKey?
    private var dhKey: [UInt8] = []
    private var localNonce: [UInt8] = []
    private var peerNonce: [UInt8] = []
    private var round = 0
    private var committed = false
    private var nonceCounter: UInt8 = 0

    init(ioCapability: IOCapability = .keyboardDisplay, mitm: Bool = true) {
        self.ioCapability = ioCapability
        authReq = AuthenticationRequirements(bonding: true, mitm: mitm, secureConnections: true, ct2: true)
    }

    private var method: PairingMethod {
        guard let request, let response else { return .justWorks }
        return MethodSelection.select(initiator: request, responder: response, secureConnections: true).method
    }

    private var own: P256PublicKey { FuzzPhone.phoneKeyPair.publicKey }
    private var a: [UInt8] { SMPAddress.f5Form(FuzzPhone.phoneAddress) }
    private var b: [UInt8] { SMPAddress.f5Form(FuzzPhone.centralAddress) }
    private var r: [UInt8] { method == .passkeyEntry ? Passkey(truncating: passkey).f6Value : [UInt8](repeating: 0, count: 16) }
    private var passkeyBit: UInt8 { 0x80 | UInt8((passkey >> UInt32(round)) & 1) }

    private func nonce() -> [UInt8] {
        nonceCounter &+= 1
        return [UInt8](repeating: 0xB0 &+ nonceCounter, count: 16)
    }

    private func crypto<T>(_ body: () throws(CryptoError) -> T) -> T {
        do { return try body() } catch {
            invariant(false, "the phone's SMP toolbox failed: \(error)")
            fatalError()
        }
    }

    func pairingRequest() -> [UInt8] {
        let both = KeyDistribution.encryptionKey.union(.identityKey)
        let features = PairingFeatures(ioCapability: ioCapability, authReq: authReq, initiatorKeys: both, responderKeys: both)
        request = features
        round = 0
        committed = false
        return SMPPDU.pairingRequest(features).encoded()
    }

    /// Passkey Entry: the first commitment once the user has the passkey.
    func passkeyKnown() -> [[UInt8]] {
        guard peerKey != nil, method == .passkeyEntry, !committed else { return [] }
        committed = true
        return [commitment()]
    }

    private func commitment() -> [UInt8] {
        localNonce = nonce()
        let x = peerKey?.x ?? []
        return SMPPDU.pairingConfirm(crypto { () throws(CryptoError) in
            try SMPCrypto.f4(u: own.x, v: x, x: localNonce, z: passkeyBit)
        }).encoded()
    }

    private func dhKeyCheck() -> [UInt8] {
        let keys = crypto { () throws(CryptoError) in try SMPCrypto.f5(w: dhKey, n1: localNonce, n2: peerNonce, a1: a, a2: b) }
        let ioCap = request?.f6IOCap ?? []
        return SMPPDU.pairingDHKeyCheck(crypto { () throws(CryptoError) in
            try SMPCrypto.f6(w: keys.macKey, n1: localNonce, n2: peerNonce, r: r, ioCap: ioCap, a1: a, a2: b)
        }).encoded()
    }

    /// The phone's answers to one PDU from the head unit. It trusts the
    /// head unit's values: only the head unit's checks are under test.
    func handle(_ bytes: [UInt8]) -> [[UInt8]] {
        guard let pdu = try? SMPPDU.decode(bytes) else { return [] }
        switch pdu {
        case .securityRequest:
            return [pairingRequest()]
        case .pairingResponse(let features):
            response = features
            return [SMPPDU.pairingPublicKey(own).encoded()]
        case .pairingPublicKey(let key):
            peerKey = key
            dhKey = crypto { () throws(CryptoError) in try FuzzPhone.phoneKeyPair.dhKey(with: key) }
            return []
        case .pairingConfirm:
            if method != .passkeyEntry { localNonce = nonce() }
            return [SMPPDU.pairingRandom(localNonce).encoded()]
        case .pairingRandom(let value):
            peerNonce = value
            if method == .passkeyEntry {
                round += 1
                return [round < 20 ? commitment() : dhKeyCheck()]
            }
            return [dhKeyCheck()]
        case .pairingDHKeyCheck:
            readyToEncrypt = true
            return []
        case .identityAddressInformation:
            return ownKeys()
        default:
            return []
        }
    }

    /// Once encrypted: the phone's keys at once when the head unit sends none.
    func encrypted() -> [[UInt8]] {
        guard let response, !response.responderKeys.contains(.identityKey) else { return [] }
        return ownKeys()
    }

    private func ownKeys() -> [[UInt8]] {
        guard let response, response.initiatorKeys.contains(.identityKey) else { return [] }
        return [SMPPDU.identityInformation(FuzzPhone.irk).encoded(),
                SMPPDU.identityAddressInformation(FuzzPhone.identityAddress).encoded()]
    }
}
