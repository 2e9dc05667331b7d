import BluetoothCore
@testable import SMP

/// An iPhone pairing with the head unit from Settings → Bluetooth: the SMP
/// initiator with iOS's parameters (KeyboardDisplay, Secure Connections,
/// MITM, bonding, IRK and identity address both ways), built on the same
/// toolbox and following Vol 3 Part H as a central would. It can be told
/// to misbehave.
final class TestInitiatorPhone: ScriptedSMPPeer {
    var authReq = AuthenticationRequirements(bonding: true, mitm: true, secureConnections: true, ct2: true)
    /// iOS offers and asks for the LTK and the identity both ways.
    var initiatorKeys = KeyDistribution.encryptionKey.union(.identityKey)
    var responderKeys = KeyDistribution.encryptionKey.union(.identityKey)
    var committedFirstRound = false
    var macKey: [UInt8] = []
    /// The head unit's DHKey check matched: the phone starts encryption.
    var readyToEncrypt = false
    /// The head unit's keys had all arrived when the phone sent its own.
    var sentKeysAfterTheirs: Bool? = nil

    var phoneAddress: BluetoothAddress { centralAddress }
    var headUnitAddress: BluetoothAddress { peripheralAddress }

    init(phone: BluetoothAddress, headUnit: BluetoothAddress, keyPair: P256KeyPair? = nil) throws {
        try super.init(central: phone, peripheral: headUnit, keyPair: keyPair)
    }

    var method: MethodSelection {
        guard let request = request, let response = response else { return MethodSelection(method: .justWorks, passkeyRole: nil) }
        return MethodSelection.select(initiator: request, responder: response, secureConnections: true)
    }

    var a: [UInt8] { SMPAddress.f5Form(phoneAddress) }
    var b: [UInt8] { SMPAddress.f5Form(headUnitAddress) }
    var r: [UInt8] { method.method == .passkeyEntry ? (typedPasskey?.f6Value ?? []) : [UInt8](repeating: 0, count: 16) }

    /// The Pairing Request, as the phone sends it when the user taps the head unit.
    func startPairing() -> [[UInt8]] {
        let req = PairingFeatures(ioCapability: ioCapability, authReq: authReq, maxEncryptionKeySize: maxKeySize,
                                  initiatorKeys: initiatorKeys, responderKeys: responderKeys)
        request = req
        preq = SMPPDU.pairingRequest(req).encoded()
        round = 0
        committedFirstRound = false
        return [preq]
    }

    /// The user typed the passkey: the first commitment, once the keys are exchanged.
    func passkeyTyped() throws -> [[UInt8]] {
        guard peerKey != nil, method.method == .passkeyEntry, !committedFirstRound else { return [] }
        committedFirstRound = true
        return [try commitment()]
    }

    private func commitment() throws -> [UInt8] {
        localNonce = nonce()
        return SMPPDU.pairingConfirm(try SMPCrypto.f4(u: keyPair.publicKey.x, v: peerKey!.x, x: localNonce,
                                                      z: passkeyBit)).encoded()
    }

    private func dhKeyCheck() throws -> [UInt8] {
        let keys = try SMPCrypto.f5(w: dhKey, n1: localNonce, n2: peerNonce, a1: a, a2: b)
        macKey = keys.macKey
        ltk = keys.ltk
        return SMPPDU.pairingDHKeyCheck(try SMPCrypto.f6(w: macKey, n1: localNonce, n2: peerNonce, r: r,
                                                         ioCap: request!.f6IOCap, a1: a, a2: b)).encoded()
    }

    /// Handles one PDU from the head unit and returns the phone's answers.
    func handle(_ bytes: [UInt8]) throws -> [[UInt8]] {
        let pdu = try SMPPDU.decode(bytes)
        log.append(pdu.code)
        switch pdu {
        case .securityRequest:
            return startPairing()
        case .pairingResponse(let rsp):
            response = rsp
            pres = bytes
            return [SMPPDU.pairingPublicKey(publicKeyOverride ?? keyPair.publicKey).encoded()]
        case .pairingPublicKey(let key):
            peerKey = key
            dhKey = try keyPair.dhKey(with: key)
            if method.method == .passkeyEntry && typedPasskey != nil { return try passkeyTyped() }
            return []
        case .pairingConfirm(let value):
            peerConfirm = value
            if method.method != .passkeyEntry { localNonce = nonce() }
            return [SMPPDU.pairingRandom(localNonce).encoded()]
        case .pairingRandom(let value):
            peerNonce = value
            if method.method == .passkeyEntry {
                let expected = try SMPCrypto.f4(u: peerKey!.x, v: keyPair.publicKey.x, x: value, z: passkeyBit)
                guard expected == peerConfirm else { return fail(.confirmValueFailed) }
                round += 1
                return [round < 20 ? try commitment() : try dhKeyCheck()]
            }
            let expected = try SMPCrypto.f4(u: peerKey!.x, v: keyPair.publicKey.x, x: value, z: 0)
            guard expected == peerConfirm else { return fail(.confirmValueFailed) }
            if method.method == .numericComparison {
                numericValue = try SMPCrypto.g2(u: keyPair.publicKey.x, v: peerKey!.x, x: localNonce, y: value) % 1_000_000
            }
            return [try dhKeyCheck()]
        case .pairingDHKeyCheck(let eb):
            let expected = try SMPCrypto.f6(w: macKey, n1: peerNonce, n2: localNonce, r: r,
                                            ioCap: response!.f6IOCap, a1: b, a2: a)
            guard expected == eb else { return fail(.dhKeyCheckFailed) }
            readyToEncrypt = true
            return []
        case .identityAddressInformation:
            record(pdu)
            return ownKeys()  // responder's keys first, then ours
        default:
            record(pdu)
            return []
        }
    }

    /// Once the link is encrypted: the phone's keys right away when the
    /// head unit distributes none (else after them, from `handle`).
    func encrypted() -> [[UInt8]] {
        guard let response = response, !response.responderKeys.contains(.identityKey) else { return [] }
        return ownKeys()
    }

    private func ownKeys() -> [[UInt8]] {
        guard let response = response, response.initiatorKeys.contains(.identityKey) else { return [] }
        sentKeysAfterTheirs = receivedIdentityAddress != nil
        return [SMPPDU.identityInformation(irk).encoded(), SMPPDU.identityAddressInformation(identityAddress).encoded()]
    }
}

/// Runs the head unit's Security Manager as responder against a
/// `TestInitiatorPhone`, passing PDUs both ways and playing the
/// controller's part when the phone starts encryption, until nothing moves.
struct ResponderHarness: PairingRun {
    let peripheral: SecurityManager
    let phone: TestInitiatorPhone
    var now = Instant(milliseconds: 1_000)
    /// Every PDU the head unit sent, in order.
    var sentByHeadUnit: [SMPCode] = []
    var events: [SecurityManagerOutput] = []
    /// What the head unit told the controller at each LTK request.
    var keyAnswers: [LongTermKeyAnswer] = []
    var acceptNumericComparison: Bool? = true
    var encryptionKeySize: UInt8? = 16

    init(peripheral: SecurityManager, phone: TestInitiatorPhone) {
        self.peripheral = peripheral
        self.phone = phone
    }

    func deliver(_ pdus: [[UInt8]]) {
        for pdu in pdus { peripheral.receive(pdu, now: now) }
    }

    /// The user taps the head unit in Settings.
    mutating func pairFromSettings() throws {
        deliver(phone.startPairing())
        try run()
    }

    mutating func run() throws {
        var steps = 0
        while steps < 500 {
            steps += 1
            if let output = peripheral.pollOutput() {
                switch output {
                case .send(let bytes):
                    sentByHeadUnit.append(try SMPPDU.decode(bytes).code)
                    deliver(try phone.handle(bytes))
                case .displayPasskey(let passkey):
                    events.append(output)
                    if phone.typedPasskey == nil { phone.typedPasskey = passkey }
                    deliver(try phone.passkeyTyped())
                case .confirmNumericComparison:
                    events.append(output)
                    if let accept = acceptNumericComparison { peripheral.confirmNumericComparison(accept, now: now) }
                default:
                    events.append(output)
                }
            } else if phone.readyToEncrypt {
                phone.readyToEncrypt = false
                encrypt(ediv: 0, rand: 0)
            } else {
                return
            }
        }
    }

    /// The phone starts encryption; the controller asks the head unit for the key.
    mutating func encrypt(ediv: UInt16, rand: UInt64) {
        let answer = peripheral.longTermKeyRequested(ediv: ediv, rand: rand, now: now)
        keyAnswers.append(answer)
        guard case .replyLongTermKey(let key) = answer, let size = encryptionKeySize else { return }
        guard key.bytes == phone.ltk else {
            peripheral.encryptionFailed(status: 0x3D, now: now)  // MIC failure: the keys differ
            return
        }
        peripheral.encryptionChanged(enabled: true, keySize: size, now: now)
        deliver(phone.encrypted())
    }
}
