import BluetoothCore
@testable import SMP

/// The phone's half of SMP (a responder, Vol 3 Part H), just enough to walk
/// the head unit's Security Manager through real pairings so that fuzzed
/// input can be fed to it in every state. Its key pair and nonces are fixed,
/// as are the head unit's in the SMP target: a run depends on its input only.
final class FuzzPhone {
    /// Vol 3 Part H Appendix D.2 sample key pairs: A for the head unit, B for the phone.
    static let centralKeyPair = try! P256KeyPair.fromPrivateKey(
        bigEndian: bytesFromHex("3f49f6d4a3c55f3874c9b3e3d2103f504aff607beb40b7995899b8a6cd3c1abd")!)
    static let phoneKeyPair = try! P256KeyPair.fromPrivateKey(
        bigEndian: bytesFromHex("55188b3d32f6bb9a900afcfbeed4e72a59cb9ac2f19d7cfb6b4fdd49f47fc5fd")!)

    static let centralAddress = BluetoothAddress("00:1B:DC:01:02:03", kind: .public)!
    static let phoneAddress = BluetoothAddress("4A:11:22:33:44:55", kind: .random)!
    static let identityAddress = BluetoothAddress("C4:5A:11:22:33:44", kind: .random)!
    static let irk = IdentityResolvingKey(bytes: bytesFromHex("0102030405060708090a0b0c0d0e0f10")!)!
    static let legacyLTK = LongTermKey(bytes: bytesFromHex("aabbccddeeff00112233445566778899")!)!

    let ioCapability: IOCapability
    let authReq: AuthenticationRequirements
    /// The passkey this phone shows (head unit types it) or that its user
    /// types (head unit shows it; filled in from `.displayPasskey`).
    var passkey: UInt32 = 123_456

    private var request: PairingFeatures?
    private var response: PairingFeatures?
    private var preq: [UInt8] = []
    private var pres: [UInt8] = []
    private var centralKey: P256PublicKey?
    private var dhKey: [UInt8] = []
    private var localNonce: [UInt8] = []
    private var peerNonce: [UInt8] = []
    private var round = 0
    private var nonceCounter: UInt8 = 0

    init(ioCapability: IOCapability, secureConnections: Bool = true, mitm: Bool = true) {
        self.ioCapability = ioCapability
        authReq = AuthenticationRequirements(bonding: true, mitm: mitm, secureConnections: secureConnections)
    }

    private var secureConnections: Bool { (request?.authReq.secureConnections ?? false) && authReq.secureConnections }

    private var method: PairingMethod {
        guard let request, let response else { return .justWorks }
        return MethodSelection.select(initiator: request, responder: response, secureConnections: secureConnections).method
    }

    private func nonce() -> [UInt8] {
        nonceCounter &+= 1
        return [UInt8](repeating: 0xA0 &+ nonceCounter, count: 16)
    }

    private var passkeyBit: UInt8 { 0x80 | UInt8((passkey >> UInt32(round)) & 1) }

    private var temporaryKey: [UInt8] {
        method == .passkeyEntry ? Passkey(truncating: passkey).f6Value : [UInt8](repeating: 0, count: 16)
    }

    private func crypto<T>(_ body: () throws(CryptoError) -> T) -> T {
        do { return try body() } catch {
            invariant(false, "the phone's SMP toolbox failed: \(error)")
            fatalError()
        }
    }

    /// The phone's answers to one PDU from the head unit.
    func handle(_ bytes: [UInt8]) -> [[UInt8]] {
        guard let pdu = try? SMPPDU.decode(bytes) else { return [] }
        let a = SMPAddress.f5Form(FuzzPhone.centralAddress), b = SMPAddress.f5Form(FuzzPhone.phoneAddress)
        let own = FuzzPhone.phoneKeyPair.publicKey
        switch pdu {
        case .pairingRequest(let features):
            request = features
            preq = bytes
            let answer = PairingFeatures(ioCapability: ioCapability, authReq: authReq, initiatorKeys: features.initiatorKeys,
                                         responderKeys: features.responderKeys)
            response = answer
            pres = SMPPDU.pairingResponse(answer).encoded()
            return [pres]
        case .pairingPublicKey(let key):
            centralKey = key
            dhKey = crypto { () throws(CryptoError) in try FuzzPhone.phoneKeyPair.dhKey(with: key) }
            var out = [SMPPDU.pairingPublicKey(own).encoded()]
            if method != .passkeyEntry {
                // Just Works and Numeric Comparison: the responder commits first.
                localNonce = nonce()
                out.append(SMPPDU.pairingConfirm(crypto { () throws(CryptoError) in
                    try SMPCrypto.f4(u: own.x, v: key.x, x: localNonce, z: 0)
                }).encoded())
            }
            return out
        case .pairingConfirm:
            localNonce = nonce()
            if !secureConnections {
                return [SMPPDU.pairingConfirm(legacyConfirm(localNonce)).encoded()]
            }
            let x = centralKey?.x ?? []
            return [SMPPDU.pairingConfirm(crypto { () throws(CryptoError) in
                try SMPCrypto.f4(u: own.x, v: x, x: localNonce, z: passkeyBit)
            }).encoded()]
        case .pairingRandom(let value):
            peerNonce = value
            if method == .passkeyEntry && secureConnections { round += 1 }
            return [SMPPDU.pairingRandom(localNonce).encoded()]
        case .pairingDHKeyCheck:
            let keys = crypto { () throws(CryptoError) in try SMPCrypto.f5(w: dhKey, n1: peerNonce, n2: localNonce, a1: a, a2: b) }
            let r = method == .passkeyEntry ? Passkey(truncating: passkey).f6Value : [UInt8](repeating: 0, count: 16)
            return [SMPPDU.pairingDHKeyCheck(crypto { () throws(CryptoError) in
                try SMPCrypto.f6(w: keys.macKey, n1: localNonce, n2: peerNonce, r: r, ioCap: response!.f6IOCap, a1: b, a2: a)
            }).encoded()]
        default:
            return []
        }
    }

    /// Phase 3: the keys the phone distributes once the link is encrypted.
    func distributedKeys() -> [[UInt8]] {
        guard let response else { return [] }
        var out: [[UInt8]] = []
        if !secureConnections && response.responderKeys.contains(.encryptionKey) {
            out.append(SMPPDU.encryptionInformation(FuzzPhone.legacyLTK).encoded())
            out.append(SMPPDU.centralIdentification(ediv: 0x1234, rand: 0x0102_0304_0506_0708).encoded())
        }
        if response.responderKeys.contains(.identityKey) {
            out.append(SMPPDU.identityInformation(FuzzPhone.irk).encoded())
            out.append(SMPPDU.identityAddressInformation(FuzzPhone.identityAddress).encoded())
        }
        return out
    }

    private func legacyConfirm(_ random: [UInt8]) -> [UInt8] {
        let central = FuzzPhone.centralAddress, phone = FuzzPhone.phoneAddress
        return crypto { () throws(CryptoError) in
            try SMPCrypto.c1(k: temporaryKey, r: random, preq: preq, pres: pres,
                             iat: SMPAddress.typeBit(central), rat: SMPAddress.typeBit(phone),
                             ia: central.littleEndianBytes, ra: phone.littleEndianBytes)
        }
    }
}
