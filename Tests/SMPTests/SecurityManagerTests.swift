import Testing
import BluetoothCore
@testable import SMP
@testable import ScriptedPairing

let headUnitAddress = BluetoothAddress("00:1B:DC:01:02:03", kind: .public)!
let phoneRPA = BluetoothAddress("4A:11:22:33:44:55", kind: .random)!
let headUnitIdentity = LocalIdentity(irk: IdentityResolvingKey(bytes: spec("f0e0d0c0b0a090807060504030201000"))!,
                                     address: headUnitAddress)

func makeCentral(_ configuration: PairingConfiguration = PairingConfiguration(localIdentity: headUnitIdentity),
                 bond: BondRecord? = nil, limiter: PairingAttemptLimiter = PairingAttemptLimiter(),
                 random: RandomSource = .system,
                 keyPair: P256KeyPair? = nil) -> SecurityManager {
    if let keyPair = keyPair {
        return SecurityManager(configuration: configuration, localAddress: headUnitAddress, peerAddress: phoneRPA,
                               bond: bond, limiter: limiter, random: random,
                               makeKeyPair: { () throws(CryptoError) -> P256KeyPair in keyPair })
    }
    return SecurityManager(configuration: configuration, localAddress: headUnitAddress, peerAddress: phoneRPA,
                           bond: bond, limiter: limiter, random: random)
}

func makePhone() throws -> TestPhone { try TestPhone(central: headUnitAddress, phone: phoneRPA) }

@Suite struct SecureConnectionsPairingTests {
    @Test func passkeyEntryPairsBondsAndDistributesKeys() throws {
        let central = makeCentral()
        let phone = try makePhone()
        var h = PairingHarness(central: central, phone: phone)
        central.secure(now: h.now)
        try h.run()

        #expect(h.failures.isEmpty)
        #expect(!h.encryptionKeyMismatch)
        let shown = h.shownPasskeys
        #expect(shown.count == 1)
        #expect(shown.first?.text.count == 6)
        // 20 rounds of Confirm + Random, one public key, one DHKey check.
        #expect(h.sentByCentral.filter { $0 == .pairingConfirm }.count == 20)
        #expect(h.sentByCentral.filter { $0 == .pairingRandom }.count == 20)
        #expect(h.sentByCentral.first == .pairingRequest)
        #expect(Array(h.sentByCentral.suffix(2)) == [.identityInformation, .identityAddressInformation])

        let outcome = try #require(h.outcome)
        #expect(outcome.method == .passkeyEntry)
        #expect(outcome.secureConnections && outcome.mitm)
        #expect(outcome.keySize == 16)
        let bond = try #require(outcome.bond)
        #expect(bond.longTermKey.bytes == phone.ltk)
        #expect(bond.peerIRK == phone.irk)
        #expect(bond.peerIdentityAddress == phone.identityAddress)
        #expect(bond.localIRK == headUnitIdentity.irk)
        #expect(bond.authenticated && bond.secureConnections && bond.ediv == 0 && bond.rand == 0)
        #expect(phone.receivedIRK == headUnitIdentity.irk)
        #expect(phone.receivedIdentityAddress == headUnitAddress)

        #expect(h.finalSecurity == LinkSecurity(keySize: 16, authenticated: true, secureConnections: true, bonded: true))
        #expect(central.phase == .idle)
        #expect(central.nextDeadline == nil)
        #expect(central.bond == bond)
    }

    /// The specification's sample data end to end: key pairs A and B, nonces
    /// N1/N2 and addresses A1/A2 of Appendix D must give its MacKey and LTK.
    @Test func replayWithSpecificationSampleDataGivesSampleLTK() throws {
        let keyA = try P256KeyPair.fromPrivateKey(bigEndian: Sample.privateA)
        let keyB = try P256KeyPair.fromPrivateKey(bigEndian: Sample.privateB)
        let centralAddress = BluetoothAddress(littleEndian: spec(Sample.a1)[0..<6], kind: .public)!
        let phoneAddress = BluetoothAddress(littleEndian: spec(Sample.a2)[0..<6], kind: .public)!
        let config = PairingConfiguration(ioCapability: .noInputNoOutput, localIdentity: nil)
        let central = SecurityManager(configuration: config, localAddress: centralAddress, peerAddress: phoneAddress,
                                      random: .scripted([spec(Sample.n1)]),
                                      makeKeyPair: { () throws(CryptoError) -> P256KeyPair in keyA })
        let phone = try TestPhone(central: centralAddress, phone: phoneAddress, keyPair: keyB)
        phone.ioCapability = .noInputNoOutput
        phone.authReq = AuthenticationRequirements(bonding: true, mitm: false, secureConnections: true)
        phone.nonces = [spec(Sample.n2)]
        var h = PairingHarness(central: central, phone: phone)
        central.secure(now: h.now)
        try h.run()

        #expect(h.failures.isEmpty)
        #expect(phone.dhKey == spec(Sample.dhKey))
        let keys = h.events.compactMap { e -> LongTermKey? in
            if case .startEncryption(let ltk, _, _) = e { return ltk } else { return nil }
        }
        #expect(keys == [LongTermKey(bytes: spec(Sample.ltk))!])
        #expect(h.outcome?.method == .justWorks)
        #expect(h.outcome?.mitm == false)
        #expect(h.outcome?.bond?.longTermKey == LongTermKey(bytes: spec(Sample.ltk))!)
    }

    @Test func justWorksWhenConfiguredWithoutIO() throws {
        let central = makeCentral(PairingConfiguration(ioCapability: .noInputNoOutput))
        let phone = try makePhone()
        var h = PairingHarness(central: central, phone: phone)
        central.secure(now: h.now)
        try h.run()
        #expect(h.failures.isEmpty)
        #expect(h.outcome?.method == .justWorks)
        #expect(h.outcome?.mitm == false)
        #expect(h.outcome?.bond?.authenticated == false)
        #expect(!h.events.contains { if case .displayPasskey = $0 { return true } else { return false } })
        // No local identity configured: none requested or sent.
        #expect(phone.receivedIRK == nil)
    }

    @Test func numericComparisonShowsTheSameValueAsThePhone() throws {
        let central = makeCentral(PairingConfiguration(ioCapability: .displayYesNo))
        let phone = try makePhone()
        phone.ioCapability = .displayYesNo
        var h = PairingHarness(central: central, phone: phone)
        central.secure(now: h.now)
        try h.run()
        #expect(h.failures.isEmpty)
        let shown = h.events.compactMap { e -> Passkey? in
            if case .confirmNumericComparison(let p) = e { return p } else { return nil }
        }
        #expect(shown.count == 1)
        #expect(shown.first?.value == phone.numericValue)
        #expect(h.outcome?.method == .numericComparison)
        #expect(h.outcome?.mitm == true)
    }

    @Test func rejectedNumericComparisonFailsPairing() throws {
        let central = makeCentral(PairingConfiguration(ioCapability: .displayYesNo))
        let phone = try makePhone()
        phone.ioCapability = .displayYesNo
        var h = PairingHarness(central: central, phone: phone)
        h.acceptNumericComparison = false
        central.secure(now: h.now)
        try h.run()
        #expect(phone.failedWith == .numericComparisonFailed)
        #expect(h.failures == [.local(.numericComparisonFailed)])
        #expect(h.outcome == nil)
    }

    @Test func wrongPasskeyFailsCleanlyAndCanBeRetried() throws {
        let limiter = PairingAttemptLimiter()
        let central = makeCentral(limiter: limiter)
        let phone = try makePhone()
        phone.typedPasskey = Passkey(123_456)  // whatever is shown, the user types this
        var h = PairingHarness(central: central, phone: phone)
        central.secure(now: h.now)
        try h.run()
        // One bit of 123456 disagrees with the shown passkey in some round
        // (unless it happened to be shown, a one-in-a-million draw).
        let shown = h.shownPasskeys
        try #require(shown.first != Passkey(123_456))
        // The phone checks our commitment first (we reveal Nai first) and
        // sends Pairing Failed; we do not answer it with another.
        #expect(h.failures == [.remote(.confirmValueFailed)])
        #expect(!h.sentByCentral.contains(.pairingFailed))
        #expect(central.phase == .idle)
        #expect(central.nextDeadline == nil)

        // The retry waits for the repeated-attempts back-off, then starts by itself.
        central.pair(now: h.now)
        #expect(central.phase == .waitingToRetry)
        #expect(central.pollOutput() == nil)
        let retryAt = try #require(central.nextDeadline)
        #expect(retryAt == h.now.adding(milliseconds: 2_000))
        h.now = retryAt
        phone.typedPasskey = nil  // this time the user types what is shown
        phone.round = 0
        h.events = []
        central.handleTimeout(now: h.now)
        try h.run()
        #expect(h.failures.isEmpty)
        #expect(h.outcome?.method == .passkeyEntry)
        #expect(limiter.consecutiveFailures(phoneRPA) == 0)
    }

    @Test func passkeyShownByThePhoneIsTypedOnTheHeadUnit() throws {
        let central = makeCentral(PairingConfiguration(ioCapability: .keyboardDisplay))
        let phone = try makePhone()
        phone.ioCapability = .displayOnly
        phone.typedPasskey = Passkey(4_711)  // what the phone shows
        var h = PairingHarness(central: central, phone: phone)
        central.secure(now: h.now)
        try h.run()
        #expect(central.phase == .awaitingPasskeyInput)
        guard case .requestPasskey? = h.events.last else {
            Issue.record("no passkey request")
            return
        }
        central.enterPasskey(Passkey(4_711), now: h.now)
        try h.run()
        #expect(h.failures.isEmpty)
        #expect(h.outcome?.method == .passkeyEntry && h.outcome?.mitm == true)
        #expect(Passkey(4_711)?.text == "004711")
    }

    @Test func cancelledPasskeyInputFailsPairing() throws {
        let central = makeCentral(PairingConfiguration(ioCapability: .keyboardOnly))
        let phone = try makePhone()
        phone.ioCapability = .displayOnly
        var h = PairingHarness(central: central, phone: phone)
        central.secure(now: h.now)
        try h.run()
        central.enterPasskey(nil, now: h.now)
        try h.run()
        #expect(phone.failedWith == .passkeyEntryFailed)
        #expect(h.failures == [.local(.passkeyEntryFailed)])
    }

    @Test func passkeyGuessingPhoneIsCaughtByOurConfirmCheck() throws {
        let central = makeCentral()
        let phone = try makePhone()
        phone.typedPasskey = Passkey(123_456)
        phone.verifiesConfirms = false
        var h = PairingHarness(central: central, phone: phone)
        central.secure(now: h.now)
        try h.run()
        let shown = h.shownPasskeys
        try #require(shown.first != Passkey(123_456))
        #expect(phone.failedWith == .confirmValueFailed)
        #expect(h.failures == [.local(.confirmValueFailed)])
        #expect(!h.events.contains { if case .startEncryption = $0 { return true } else { return false } })
    }

    @Test func invalidCurvePublicKeyIsRefused() throws {
        let central = makeCentral()
        let phone = try makePhone()
        var forged = phone.keyPair.publicKey.wireBytes
        for i in 32..<64 { forged[i] = 0 }  // keep X, zero Y: CVE-2018-5383
        phone.publicKeyOverride = P256PublicKey(wireBytes: forged)
        var h = PairingHarness(central: central, phone: phone)
        central.secure(now: h.now)
        try h.run()
        #expect(phone.failedWith == .invalidParameters)
        #expect(h.failures == [.local(.invalidParameters)])
        #expect(!h.events.contains { if case .displayPasskey = $0 { return true } else { return false } })
    }

    @Test func debugKeyIsRefusedUnlessAllowed() throws {
        let debugPair = try P256KeyPair.fromPrivateKey(bigEndian: Sample.privateA)
        let phone = try TestPhone(central: headUnitAddress, phone: phoneRPA, keyPair: debugPair)
        var h = PairingHarness(central: makeCentral(), phone: phone)
        h.central.secure(now: h.now)
        try h.run()
        #expect(phone.failedWith == .authenticationRequirements)
        #expect(h.failures == [.local(.authenticationRequirements)])

        let allowing = makeCentral(PairingConfiguration(allowDebugKeys: true))
        let phone2 = try TestPhone(central: headUnitAddress, phone: phoneRPA, keyPair: debugPair)
        var h2 = PairingHarness(central: allowing, phone: phone2)
        allowing.secure(now: h2.now)
        try h2.run()
        #expect(h2.failures.isEmpty)
        #expect(h2.outcome != nil)
    }

    @Test func reflectedPublicKeyIsRefused() throws {
        let mine = try P256KeyPair.generate()
        let central = makeCentral(keyPair: mine)
        let phone = try makePhone()
        phone.publicKeyOverride = mine.publicKey
        var h = PairingHarness(central: central, phone: phone)
        central.secure(now: h.now)
        try h.run()
        #expect(h.failures == [.local(.invalidParameters)])
    }

    @Test func shortEncryptionKeyIsRefused() throws {
        let phone = try makePhone()
        phone.maxKeySize = 7  // KNOB
        var h = PairingHarness(central: makeCentral(), phone: phone)
        h.central.secure(now: h.now)
        try h.run()
        #expect(phone.failedWith == .encryptionKeySize)
        #expect(h.failures == [.local(.encryptionKeySize)])
        #expect(h.sentByCentral == [.pairingRequest, .pairingFailed])
    }

    @Test func controllerReportingAShortKeyAbortsPairing() throws {
        var h = PairingHarness(central: makeCentral(), phone: try makePhone())
        h.encryptionKeySize = nil  // answer the encryption by hand
        h.central.secure(now: h.now)
        try h.run()
        h.central.encryptionChanged(enabled: true, keySize: 7, now: h.now)
        try h.run()
        #expect(h.failures == [.local(.encryptionKeySize)])
        #expect(h.outcome == nil)
    }

    @Test func pairingFailedFromThePhoneIsReportedForEveryReason() throws {
        for raw in UInt8(1)...UInt8(0x12) {
            let central = makeCentral()
            central.secure(now: .zero)
            _ = central.drainOutputs()
            central.receive([0x05, raw], now: .zero)
            let outputs = central.drainOutputs()
            #expect(outputs.count == 1)
            guard case .failed(let failure)? = outputs.first else {
                Issue.record("no failure for reason \(raw)")
                continue
            }
            #expect(failure == .remote(PairingFailureReason(rawValue: raw)))
            #expect(central.phase == .idle)
        }
    }

    @Test func phoneWithoutIOCannotMeetRequiredMITM() throws {
        let phone = try makePhone()
        phone.ioCapability = .noInputNoOutput
        var h = PairingHarness(central: makeCentral(), phone: phone)
        h.central.secure(now: h.now)
        try h.run()
        #expect(h.failures == [.local(.authenticationRequirements)])
    }
}

@Suite struct ProtocolOrderTests {
    /// A phone's Pairing Response for SC Passkey Entry (KeyboardDisplay, MITM, bonding).
    static let passkeyResponse = SMPPDU.pairingResponse(PairingFeatures(
        ioCapability: .keyboardDisplay,
        authReq: AuthenticationRequirements(bonding: true, mitm: true, secureConnections: true),
        initiatorKeys: .identityKey, responderKeys: .identityKey)).encoded()

    /// A central that has sent its Pairing Request and received the phone's
    /// Pairing Response (SC, passkey), now waiting for the public key.
    func centralAwaitingPublicKey() throws -> SecurityManager {
        let central = makeCentral()
        central.secure(now: .zero)
        _ = central.drainOutputs()
        central.receive(ProtocolOrderTests.passkeyResponse, now: .zero)
        let outputs = central.drainOutputs()
        guard case .send(let bytes)? = outputs.first, case .pairingPublicKey? = try? SMPPDU.decode(bytes) else {
            Issue.record("no public key sent")
            return central
        }
        #expect(central.phase == .awaitingPublicKey)
        return central
    }

    func expectAbort(_ central: SecurityManager, _ reason: PairingFailureReason) {
        let outputs = central.drainOutputs()
        guard outputs.count == 2, case .send(let bytes) = outputs[0], case .failed(let failure) = outputs[1] else {
            Issue.record("expected Pairing Failed and .failed")
            return
        }
        #expect(bytes == [0x05, reason.rawValue])
        #expect(failure == .local(reason))
        #expect(central.phase == .idle)
    }

    @Test func dhKeyCheckBeforePublicKeysAborts() throws {
        let central = try centralAwaitingPublicKey()
        central.receive(SMPPDU.pairingDHKeyCheck([UInt8](repeating: 1, count: 16)).encoded(), now: .zero)
        expectAbort(central, .unspecifiedReason)
    }

    @Test func confirmBeforePublicKeyAborts() throws {
        let central = try centralAwaitingPublicKey()
        central.receive(SMPPDU.pairingConfirm([UInt8](repeating: 2, count: 16)).encoded(), now: .zero)
        expectAbort(central, .unspecifiedReason)
    }

    @Test func keyDistributionBeforeEncryptionAborts() throws {
        let central = try centralAwaitingPublicKey()
        central.receive(SMPPDU.identityInformation(IdentityResolvingKey(bytes: [UInt8](repeating: 3, count: 16))!).encoded(), now: .zero)
        expectAbort(central, .unspecifiedReason)
    }

    @Test func randomBeforeConfirmAborts() throws {
        // Just Works: after the public keys the phone must commit (Confirm) first.
        let central = makeCentral(PairingConfiguration(ioCapability: .noInputNoOutput))
        let phone = try makePhone()
        phone.ioCapability = .noInputNoOutput
        central.secure(now: .zero)
        guard case .send(let request)? = central.pollOutput() else { Issue.record("no request"); return }
        for answer in try phone.handle(request) { central.receive(answer, now: .zero) }
        guard case .send(let publicKey)? = central.pollOutput() else { Issue.record("no public key"); return }
        let answers = try phone.handle(publicKey)
        central.receive(answers[0], now: .zero)  // the phone's public key, but not its Confirm
        central.receive(SMPPDU.pairingRandom(phone.localNonce).encoded(), now: .zero)
        expectAbort(central, .unspecifiedReason)
    }

    @Test func malformedPDUDuringPairingAborts() throws {
        let central = try centralAwaitingPublicKey()
        central.receive([0x0C, 0x01, 0x02], now: .zero)  // a truncated public key
        expectAbort(central, .invalidParameters)
        let second = try centralAwaitingPublicKey()
        second.receive([0x3F, 0x00], now: .zero)
        expectAbort(second, .commandNotSupported)
    }

    @Test func strayPDUsWithoutPairingAreIgnored() throws {
        let central = makeCentral()
        central.receive(SMPPDU.pairingDHKeyCheck([UInt8](repeating: 1, count: 16)).encoded(), now: .zero)
        central.receive(SMPPDU.pairingFailed(.unspecifiedReason).encoded(), now: .zero)
        #expect(central.drainOutputs().isEmpty)
        #expect(central.phase == .idle)
    }

    @Test func keysArrivingBeforeTheEncryptionEventAreKept() throws {
        var h = PairingHarness(central: makeCentral(), phone: try makePhone())
        h.encryptionKeySize = nil
        h.central.secure(now: h.now)
        try h.run()
        #expect(h.central.phase == .awaitingEncryption)
        // The phone's keys overtake the Encryption Change event.
        for key in h.phone.distributeKeys() { h.central.receive(key, now: h.now) }
        h.central.encryptionChanged(enabled: true, keySize: 16, now: h.now)
        try h.run()
        #expect(h.failures.isEmpty)
        #expect(h.outcome?.bond?.peerIRK == h.phone.irk)
    }

    @Test func smpTimeoutEndsSMPOnTheLink() throws {
        let central = makeCentral()
        let start = Instant(milliseconds: 5_000)
        central.secure(now: start)
        #expect(central.drainOutputs().count == 1)
        #expect(central.nextDeadline == start.adding(seconds: 30))
        central.handleTimeout(now: start.adding(milliseconds: 29_999))
        #expect(central.drainOutputs().isEmpty)
        central.handleTimeout(now: start.adding(seconds: 30))
        let outputs = central.drainOutputs()
        guard outputs.count == 1, case .failed(.timeout) = outputs[0] else {
            Issue.record("expected a timeout failure only (no Pairing Failed is sent)")
            return
        }
        #expect(central.phase == .timedOut)
        #expect(central.nextDeadline == nil)
        // Nothing more on this link: late PDUs, new requests, Security Requests.
        central.receive(SMPPDU.securityRequest(AuthenticationRequirements(rawValue: 0x0D)).encoded(), now: start.adding(seconds: 31))
        central.pair(now: start.adding(seconds: 32))
        central.secure(now: start.adding(seconds: 33))
        #expect(central.drainOutputs().isEmpty)
    }

    /// Vol 3 Part H 3.4: the timer restarts when we queue a PDU. The
    /// Pairing Response is answered with our public key at once, so 30 s
    /// run from then.
    @Test func theTimerRestartsWhenWeSend() throws {
        let central = makeCentral()
        central.secure(now: .zero)
        _ = central.drainOutputs()
        central.receive(ProtocolOrderTests.passkeyResponse, now: Instant(milliseconds: 20_000))
        #expect(central.drainOutputs().count == 1) // Pairing Public Key
        #expect(central.nextDeadline == Instant(milliseconds: 50_000))
    }

    /// A phone that sends Keypress Notifications forever (or any PDU that
    /// needs no answer) cannot keep the pairing open: 30 s after our last
    /// PDU it times out.
    @Test func keypressesForeverStillTimeOut() throws {
        let central = makeCentral()
        central.secure(now: .zero)
        _ = central.drainOutputs()
        central.receive(ProtocolOrderTests.passkeyResponse, now: Instant(milliseconds: 1_000))
        #expect(central.drainOutputs().count == 1) // our last PDU, at 1 s
        let keypress = SMPPDU.keypressNotification(.digitEntered).encoded()
        var timedOutAt: Int64?
        for ms in stride(from: Int64(1_500), through: 60_000, by: 500) {
            let now = Instant(milliseconds: ms)
            central.receive(keypress, now: now)
            if let deadline = central.nextDeadline, deadline <= now { central.handleTimeout(now: now) }
            if central.drainOutputs().contains(where: { if case .failed(.timeout) = $0 { return true } else { return false } }) {
                timedOutAt = ms
                break
            }
        }
        #expect(timedOutAt == 31_000)
        #expect(central.phase == .timedOut)
    }
}

@Suite struct LegacyPairingTests {
    func legacyPhone() throws -> TestPhone {
        let phone = try makePhone()
        phone.authReq = AuthenticationRequirements(bonding: true, mitm: true, secureConnections: false)
        return phone
    }

    @Test func legacyIsRefusedByDefault() throws {
        let phone = try legacyPhone()
        var h = PairingHarness(central: makeCentral(), phone: phone)
        h.central.secure(now: h.now)
        try h.run()
        #expect(phone.failedWith == .authenticationRequirements)
        #expect(h.failures == [.local(.authenticationRequirements)])
    }

    @Test func legacyPasskeyPairingWhenAllowed() throws {
        let phone = try legacyPhone()
        let central = makeCentral(PairingConfiguration(requireSecureConnections: false, localIdentity: headUnitIdentity))
        var h = PairingHarness(central: central, phone: phone)
        central.secure(now: h.now)
        try h.run()
        #expect(h.failures.isEmpty)
        #expect(!h.encryptionKeyMismatch)
        let outcome = try #require(h.outcome)
        #expect(outcome.method == .passkeyEntry && !outcome.secureConnections && outcome.mitm)
        let bond = try #require(outcome.bond)
        #expect(bond.longTermKey == phone.legacyLTK)
        #expect(bond.ediv == phone.legacyEDIV && bond.rand == phone.legacyRand)
        #expect(!bond.secureConnections)
        #expect(h.sentByCentral.filter { $0 == .pairingPublicKey }.isEmpty)
    }

    @Test func legacyAllZeroLTKIsRejected() throws {
        let phone = try legacyPhone()
        phone.legacyLTK = LongTermKey(bytes: [UInt8](repeating: 0, count: 16))!
        let central = makeCentral(PairingConfiguration(requireSecureConnections: false))
        var h = PairingHarness(central: central, phone: phone)
        central.secure(now: h.now)
        try h.run()
        #expect(h.failures == [.local(.keyRejected)])
        #expect(h.outcome == nil)
    }

    @Test func legacyWrongPasskeyFails() throws {
        let phone = try legacyPhone()
        phone.typedPasskey = Passkey(1)
        let central = makeCentral(PairingConfiguration(requireSecureConnections: false))
        var h = PairingHarness(central: central, phone: phone)
        central.secure(now: h.now)
        try h.run()
        #expect(h.failures == [.remote(.confirmValueFailed)] || h.failures == [.local(.confirmValueFailed)])
    }
}

@Suite struct BondedEncryptionTests {
    /// First pairing, the bond stored and loaded again, the phone back with
    /// a new resolvable private address: recognised by its IRK, encrypted
    /// with the stored key, no new pairing.
    @Test func reconnectAfterAddressRotationUsesTheStoredBond() throws {
        let phone = try makePhone()
        var h = PairingHarness(central: makeCentral(), phone: phone)
        h.central.secure(now: h.now)
        try h.run()
        let bond = try #require(h.outcome?.bond)
        let stored = try BondRecord.decode(bond.encoded())

        let rotated = try phone.irk.resolvablePrivateAddress(prand: RandomSource.system.bytes(3))
        #expect(rotated != phoneRPA)
        let found = try #require(BondRecord.find(rotated, in: [BondRecordTests.minimal, stored]))
        let central = SecurityManager(configuration: PairingConfiguration(localIdentity: headUnitIdentity),
                                      localAddress: headUnitAddress, peerAddress: rotated, bond: found)
        central.secure(now: .zero)
        let outputs = central.drainOutputs()
        #expect(outputs.count == 1)
        guard case .startEncryption(let ltk, let ediv, let rand)? = outputs.first else {
            Issue.record("no startEncryption")
            return
        }
        #expect(ltk.bytes == phone.ltk && ediv == 0 && rand == 0)
    }

    func storedBond(authenticated: Bool = true) -> BondRecord {
        BondRecord(peerIdentityAddress: BluetoothAddress("C4:5A:11:22:33:44", kind: .random)!,
                   peerIRK: IdentityResolvingKey(bytes: spec("0102030405060708090a0b0c0d0e0f10")),
                   longTermKey: LongTermKey(bytes: spec("00112233445566778899aabbccddeeff"))!,
                   keySize: 16, authenticated: authenticated, secureConnections: true, localIRK: nil)
    }

    @Test func reconnectEncryptsWithTheStoredKey() throws {
        let bond = storedBond()
        let central = makeCentral(bond: bond)
        central.secure(now: .zero)
        let outputs = central.drainOutputs()
        #expect(outputs.count == 1)
        guard case .startEncryption(let ltk, let ediv, let rand)? = outputs.first else {
            Issue.record("no startEncryption")
            return
        }
        #expect(ltk == bond.longTermKey && ediv == 0 && rand == 0)
        central.encryptionChanged(enabled: true, keySize: 16, now: .zero)
        guard case .encrypted(let security)? = central.pollOutput() else {
            Issue.record("no .encrypted")
            return
        }
        #expect(security == LinkSecurity(keySize: 16, authenticated: true, secureConnections: true, bonded: true))
        // A Security Request on the secure link changes nothing.
        central.receive(SMPPDU.securityRequest(AuthenticationRequirements(rawValue: 0x0D)).encoded(), now: .zero)
        #expect(central.drainOutputs().isEmpty)
    }

    /// Expects the refusal of the key size (0: not reported) as the only
    /// output, and no link security left.
    func expectKeySizeRefused(_ central: SecurityManager, _ keySize: UInt8?, sourceLocation: SourceLocation = #_sourceLocation) {
        let outputs = central.drainOutputs()
        guard outputs.count == 1, case .failed(.keySizeTooSmall(keySize ?? 0)) = outputs[0] else {
            Issue.record("expected the key size refused, got \(outputs)", sourceLocation: sourceLocation)
            return
        }
        #expect(central.linkSecurity == nil, sourceLocation: sourceLocation)
    }

    /// KNOB: a bonded reconnection whose controller reports a 7-octet key
    /// is refused (the owner drops the link on `.keySizeTooSmall`); so is
    /// one whose controller did not tell the key size.
    @Test(arguments: [UInt8?.some(7), nil])
    func reconnectWithAShortOrUnknownKeySizeIsRefused(keySize: UInt8?) throws {
        let central = makeCentral(bond: storedBond())
        central.secure(now: .zero)
        _ = central.drainOutputs()
        central.encryptionChanged(enabled: true, keySize: keySize, now: .zero)
        expectKeySizeRefused(central, keySize)
    }

    /// Encryption this Security Manager did not start (a key refresh, a
    /// controller acting on its own) passes the same key-size check.
    @Test(arguments: [UInt8?.some(7), nil])
    func encryptionNobodyAskedForIsCheckedToo(keySize: UInt8?) throws {
        let central = makeCentral(bond: storedBond())
        central.encryptionChanged(enabled: true, keySize: keySize, now: .zero)
        expectKeySizeRefused(central, keySize)
        // After a good encryption, a refresh with a short key is refused as well.
        let secured = makeCentral(bond: storedBond())
        secured.secure(now: .zero)
        secured.encryptionChanged(enabled: true, keySize: 16, now: .zero)
        _ = secured.drainOutputs()
        secured.encryptionChanged(enabled: true, keySize: keySize, now: .zero)
        expectKeySizeRefused(secured, keySize)
    }

    /// The phone refused a request for lack of authentication or encryption
    /// (ANCS 0x05 / 0x0F): an unencrypted link is encrypted with the bond, an
    /// encrypted one whose keys the phone does not accept is paired again.
    @Test func refusedForSecurityEncryptsOrPairsAgain() throws {
        let unencrypted = makeCentral(bond: storedBond())
        unencrypted.peerRequiresSecurity(now: .zero)
        guard case .startEncryption? = unencrypted.pollOutput() else {
            Issue.record("no startEncryption")
            return
        }
        let encrypted = makeCentral(bond: storedBond())
        encrypted.secure(now: .zero)
        encrypted.encryptionChanged(enabled: true, keySize: 16, now: .zero)
        _ = encrypted.drainOutputs()
        encrypted.peerRequiresSecurity(now: .zero)
        guard case .send(let bytes)? = encrypted.pollOutput(), case .pairingRequest? = try? SMPPDU.decode(bytes) else {
            Issue.record("no Pairing Request")
            return
        }
        // Under way: asking again changes nothing.
        encrypted.peerRequiresSecurity(now: .zero)
        #expect(encrypted.drainOutputs().isEmpty)
    }

    @Test func securityRequestWithBondEncryptsInsteadOfPairing() throws {
        let bond = storedBond()
        let central = makeCentral(bond: bond)
        central.receive(SMPPDU.securityRequest(AuthenticationRequirements(rawValue: 0x0D)).encoded(), now: .zero)
        guard case .startEncryption(let ltk, _, _)? = central.pollOutput() else {
            Issue.record("no startEncryption")
            return
        }
        #expect(ltk == bond.longTermKey)
        #expect(central.phase == .encryptingWithBond)
    }

    @Test func securityRequestWithoutBondPairs() throws {
        let central = makeCentral()
        central.receive(SMPPDU.securityRequest(AuthenticationRequirements(rawValue: 0x0D)).encoded(), now: .zero)
        guard case .send(let bytes)? = central.pollOutput(), case .pairingRequest? = try? SMPPDU.decode(bytes) else {
            Issue.record("no Pairing Request")
            return
        }
    }

    @Test func securityRequestForMITMWithUnauthenticatedBondPairsAgain() throws {
        let central = makeCentral(bond: storedBond(authenticated: false))
        central.receive(SMPPDU.securityRequest(AuthenticationRequirements(rawValue: 0x0D)).encoded(), now: .zero)
        guard case .send(let bytes)? = central.pollOutput(), case .pairingRequest? = try? SMPPDU.decode(bytes) else {
            Issue.record("no Pairing Request")
            return
        }
    }

    @Test func phoneThatForgotUsIsPairedAgainOnce() throws {
        let limiter = PairingAttemptLimiter()
        let bond = storedBond()
        let central = makeCentral(bond: bond, limiter: limiter)
        central.secure(now: .zero)
        _ = central.drainOutputs()
        central.encryptionFailed(status: 0x06, now: .zero)  // PIN or Key Missing
        let outputs = central.drainOutputs()
        guard outputs.count == 2, case .peerLostKeys(let stale) = outputs[0], case .send(let bytes) = outputs[1],
              case .pairingRequest? = try? SMPPDU.decode(bytes) else {
            Issue.record("expected peerLostKeys then a Pairing Request")
            return
        }
        #expect(stale == bond)
        #expect(central.bond == nil)
    }

    @Test func phoneThatKeepsForgettingIsNotPairedForever() throws {
        let limiter = PairingAttemptLimiter(maximumStaleBondRecoveries: 2)
        var lastOutputs: [SecurityManagerOutput] = []
        for _ in 0..<3 {
            let central = makeCentral(bond: storedBond(), limiter: limiter)
            central.secure(now: .zero)
            _ = central.drainOutputs()
            central.encryptionFailed(status: 0x06, now: .zero)
            lastOutputs = central.drainOutputs()
        }
        guard lastOutputs.count == 2, case .peerLostKeys = lastOutputs[0], case .failed(.tooManyAttempts) = lastOutputs[1] else {
            Issue.record("third stale bond should stop pairing")
            return
        }
    }

    @Test func otherEncryptionFailuresAreReported() throws {
        let central = makeCentral(bond: storedBond())
        central.secure(now: .zero)
        _ = central.drainOutputs()
        central.encryptionFailed(status: 0x3D, now: .zero)
        guard case .failed(.encryption(let status))? = central.pollOutput() else {
            Issue.record("no failure")
            return
        }
        #expect(status == 0x3D)
        #expect(central.bond != nil)
    }
}

@Suite struct RepeatedAttemptsTests {
    @Test func backoffDoublesAndGivesUp() {
        let limiter = PairingAttemptLimiter(initialBackoffMilliseconds: 1_000, maximumBackoffMilliseconds: 4_000,
                                            maximumConsecutiveFailures: 4)
        let now = Instant(milliseconds: 10_000)
        #expect(limiter.notBefore(phoneRPA, now: now) == nil)
        limiter.recordFailure(phoneRPA, now: now)
        #expect(limiter.notBefore(phoneRPA, now: now) == now.adding(milliseconds: 1_000))
        limiter.recordFailure(phoneRPA, now: now)
        #expect(limiter.notBefore(phoneRPA, now: now) == now.adding(milliseconds: 2_000))
        limiter.recordFailure(phoneRPA, now: now)
        #expect(limiter.notBefore(phoneRPA, now: now) == now.adding(milliseconds: 4_000))
        #expect(!limiter.hasGivenUp(phoneRPA))
        limiter.recordFailure(phoneRPA, now: now)
        #expect(limiter.notBefore(phoneRPA, now: now) == now.adding(milliseconds: 4_000))
        #expect(limiter.hasGivenUp(phoneRPA))

        let central = makeCentral(limiter: limiter)
        central.secure(now: now.adding(seconds: 60))
        guard case .failed(.tooManyAttempts)? = central.pollOutput() else {
            Issue.record("expected tooManyAttempts")
            return
        }
        limiter.reset(phoneRPA)
        central.secure(now: now.adding(seconds: 61))
        guard case .send? = central.pollOutput() else {
            Issue.record("expected a Pairing Request after reset")
            return
        }
    }

    @Test func failuresFromThePhoneCountToo() {
        let limiter = PairingAttemptLimiter()
        let central = makeCentral(limiter: limiter)
        central.secure(now: .zero)
        central.receive(SMPPDU.pairingFailed(.repeatedAttempts).encoded(), now: .zero)
        #expect(limiter.consecutiveFailures(phoneRPA) == 1)
    }
}
