import BluetoothCore
@testable import SMP

/// A small SMP responder standing in for the phone, built on the same
/// toolbox so the central can be run through complete pairings. It follows
/// Vol 3 Part H as a peripheral would and can be told to misbehave. Shared
/// by the SMP tests and the core tests.
final class TestPhone: ScriptedSMPPeer {
    var authReq = AuthenticationRequirements(bonding: true, mitm: true, secureConnections: true)
    var keysToDistribute = KeyDistribution.encryptionKey.union(.identityKey)
    var legacyLTK = LongTermKey(bytes: bytesFromHex("aabbccddeeff00112233445566778899")!)!
    var legacyEDIV: UInt16 = 0x1234
    var legacyRand: UInt64 = 0x0102_0304_0506_0708
    /// false: a phone that never checks our commitments (an attacker
    /// guessing), so only the head unit's own checks can stop it.
    var verifiesConfirms = true

    var phoneAddress: BluetoothAddress { peripheralAddress }

    init(central: BluetoothAddress, phone: BluetoothAddress, keyPair: P256KeyPair? = nil) throws {
        try super.init(central: central, peripheral: phone, keyPair: keyPair)
    }

    var secureConnections: Bool { (request?.authReq.secureConnections ?? false) && authReq.secureConnections }

    var method: MethodSelection {
        guard let request = request, let response = response else { return MethodSelection(method: .justWorks, passkeyRole: nil) }
        return MethodSelection.select(initiator: request, responder: response, secureConnections: secureConnections)
    }

    /// Handles one PDU from the central and returns the phone's answers.
    func handle(_ bytes: [UInt8]) throws -> [[UInt8]] {
        let pdu = try SMPPDU.decode(bytes)
        log.append(pdu.code)
        switch pdu {
        case .pairingRequest(let req):
            // A new pairing on the same link starts the passkey bits over.
            round = 0
            request = req
            preq = bytes
            let rsp = PairingFeatures(ioCapability: ioCapability, authReq: authReq, maxEncryptionKeySize: maxKeySize,
                                      initiatorKeys: req.initiatorKeys.intersection(.identityKey),
                                      responderKeys: req.responderKeys.intersection(keysToDistribute))
            response = rsp
            pres = SMPPDU.pairingResponse(rsp).encoded()
            return [pres]
        case .pairingPublicKey(let key):
            peerKey = key
            dhKey = try keyPair.dhKey(with: key)
            var out = [SMPPDU.pairingPublicKey(publicKeyOverride ?? keyPair.publicKey).encoded()]
            if method.method != .passkeyEntry {
                localNonce = nonce()
                out.append(SMPPDU.pairingConfirm(try SMPCrypto.f4(u: keyPair.publicKey.x, v: key.x, x: localNonce, z: 0)).encoded())
            }
            return out
        case .pairingConfirm(let value):
            peerConfirm = value
            if !secureConnections {
                localNonce = nonce()
                return [SMPPDU.pairingConfirm(try legacyConfirm(localNonce)).encoded()]
            }
            // Passkey entry: commit to the same bit with our own nonce.
            localNonce = nonce()
            return [SMPPDU.pairingConfirm(try SMPCrypto.f4(u: keyPair.publicKey.x, v: peerKey!.x, x: localNonce,
                                                           z: passkeyBit)).encoded()]
        case .pairingRandom(let value):
            peerNonce = value
            if !secureConnections {
                guard try legacyConfirm(value) == peerConfirm else { return fail(.confirmValueFailed) }
                return [SMPPDU.pairingRandom(localNonce).encoded()]
            }
            if method.method == .passkeyEntry {
                let expected = try SMPCrypto.f4(u: peerKey!.x, v: keyPair.publicKey.x, x: value, z: passkeyBit)
                guard expected == peerConfirm || !verifiesConfirms else { return fail(.confirmValueFailed) }
                round += 1
            } else if method.method == .numericComparison {
                numericValue = try SMPCrypto.g2(u: peerKey!.x, v: keyPair.publicKey.x, x: value, y: localNonce) % 1_000_000
            }
            return [SMPPDU.pairingRandom(localNonce).encoded()]
        case .pairingDHKeyCheck(let ea):
            let a = SMPAddress.f5Form(centralAddress)
            let b = SMPAddress.f5Form(phoneAddress)
            let keys = try SMPCrypto.f5(w: dhKey, n1: peerNonce, n2: localNonce, a1: a, a2: b)
            let r = method.method == .passkeyEntry ? (typedPasskey?.f6Value ?? []) : [UInt8](repeating: 0, count: 16)
            let expected = try SMPCrypto.f6(w: keys.macKey, n1: peerNonce, n2: localNonce, r: r,
                                            ioCap: request!.f6IOCap, a1: a, a2: b)
            guard expected == ea else { return fail(.dhKeyCheckFailed) }
            ltk = keys.ltk
            return [SMPPDU.pairingDHKeyCheck(try SMPCrypto.f6(w: keys.macKey, n1: localNonce, n2: peerNonce, r: r,
                                                              ioCap: response!.f6IOCap, a1: b, a2: a)).encoded()]
        default:
            record(pdu)
            return []
        }
    }

    /// The key the link must be encrypted with: the SC LTK, or the legacy STK.
    func expectedEncryptionKey() throws -> [UInt8] {
        if secureConnections { return ltk }
        return try SMPCrypto.s1(k: temporaryKey, r1: localNonce, r2: peerNonce)
    }

    /// Phase 3: our keys, sent once the link is encrypted.
    func distributeKeys() -> [[UInt8]] {
        guard let response = response else { return [] }
        var out: [[UInt8]] = []
        if !secureConnections && response.responderKeys.contains(.encryptionKey) {
            out.append(SMPPDU.encryptionInformation(legacyLTK).encoded())
            out.append(SMPPDU.centralIdentification(ediv: legacyEDIV, rand: legacyRand).encoded())
        }
        if response.responderKeys.contains(.identityKey) {
            out.append(SMPPDU.identityInformation(irk).encoded())
            out.append(SMPPDU.identityAddressInformation(identityAddress).encoded())
        }
        return out
    }

    private var temporaryKey: [UInt8] {
        method.method == .passkeyEntry ? (typedPasskey?.f6Value ?? []) : [UInt8](repeating: 0, count: 16)
    }

    private func legacyConfirm(_ random: [UInt8]) throws -> [UInt8] {
        try SMPCrypto.c1(k: temporaryKey, r: random, preq: preq, pres: pres,
                         iat: SMPAddress.typeBit(centralAddress), rat: SMPAddress.typeBit(phoneAddress),
                         ia: centralAddress.littleEndianBytes, ra: phoneAddress.littleEndianBytes)
    }
}

extension RandomSource {
    /// Hands out the given values first (for replaying sample data), then
    /// system randomness.
    static func scripted(_ values: [[UInt8]]) -> RandomSource {
        final class Queue { var values: [[UInt8]]; init(_ v: [[UInt8]]) { values = v } }
        let queue = Queue(values)
        return RandomSource { count in
            if let next = queue.values.first, next.count == count {
                queue.values.removeFirst()
                return next
            }
            return RandomSource.system.generate(count)
        }
    }
}

/// Runs the head unit's Security Manager against a `TestPhone`, passing
/// PDUs both ways and playing the controller's part in encryption, until
/// nothing moves. Returns every output except the PDUs.
struct PairingHarness: PairingRun {
    let central: SecurityManager
    let phone: TestPhone
    var now = Instant(milliseconds: 1_000)
    /// Every PDU the central sent, in order.
    var sentByCentral: [SMPCode] = []
    var events: [SecurityManagerOutput] = []
    /// The numeric comparison answer the user gives; nil leaves the question open.
    var acceptNumericComparison: Bool? = true
    var encryptionKeySize: UInt8? = 16
    /// Set when the central encrypted with a key the phone does not have.
    var encryptionKeyMismatch = false

    init(central: SecurityManager, phone: TestPhone) {
        self.central = central
        self.phone = phone
    }

    mutating func run() throws {
        var guardCounter = 0
        while let output = central.pollOutput() {
            guardCounter += 1
            if guardCounter > 500 { break }
            switch output {
            case .send(let bytes):
                sentByCentral.append(try SMPPDU.decode(bytes).code)
                for answer in try phone.handle(bytes) { central.receive(answer, now: now) }
            case .displayPasskey(let passkey):
                events.append(output)
                if phone.typedPasskey == nil { phone.typedPasskey = passkey }
            case .confirmNumericComparison:
                events.append(output)
                if let accept = acceptNumericComparison { central.confirmNumericComparison(accept, now: now) }
            case .startEncryption(let ltk, _, _):
                events.append(output)
                if phone.failedWith == nil, let size = encryptionKeySize {
                    if ltk.bytes != (try phone.expectedEncryptionKey()) { encryptionKeyMismatch = true }
                    central.encryptionChanged(enabled: true, keySize: size, now: now)
                    for key in phone.distributeKeys() { central.receive(key, now: now) }
                }
            default:
                events.append(output)
            }
        }
    }
}
