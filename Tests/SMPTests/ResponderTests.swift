import Testing
import BluetoothCore
@testable import SMP
@testable import ScriptedPairing

/// The head unit as peripheral: its static random identity is its address
/// on the air, and the phone pairs it from Settings with a resolvable
/// private address.
let peripheralAddress = BluetoothAddress("C6:10:20:30:40:50", kind: .random)!
let peripheralIdentity = LocalIdentity(irk: IdentityResolvingKey(bytes: spec("a0b0c0d0e0f000112233445566778899"))!,
                                       address: peripheralAddress)

func makePeripheral(_ configuration: PairingConfiguration = PairingConfiguration(localIdentity: peripheralIdentity),
                    peer: BluetoothAddress = phoneRPA, bond: BondRecord? = nil,
                    limiter: PairingAttemptLimiter = PairingAttemptLimiter(),
                    random: RandomSource = .system, keyPair: P256KeyPair? = nil) -> SecurityManager {
    let fixed = keyPair
    return SecurityManager(role: .responder, configuration: configuration, localAddress: peripheralAddress,
                           peerAddress: peer, bond: bond, limiter: limiter, random: random,
                           makeKeyPair: { () throws(CryptoError) -> P256KeyPair in
                               if let fixed = fixed { return fixed }
                               return try P256KeyPair.generate()
                           })
}

func makeIPhone() throws -> TestInitiatorPhone { try TestInitiatorPhone(phone: phoneRPA, headUnit: peripheralAddress) }

func sentPDUs(_ outputs: [SecurityManagerOutput]) -> [SMPPDU] {
    outputs.compactMap { if case .send(let bytes) = $0 { return try? SMPPDU.decode(bytes) } else { return nil } }
}

@Suite struct ResponderPairingTests {
    @Test func iPhoneFromSettingsPairsWithPasskeyShownOnTheHeadUnit() throws {
        let phone = try makeIPhone()
        var h = ResponderHarness(peripheral: makePeripheral(), phone: phone)
        try h.pairFromSettings()

        #expect(h.failures.isEmpty)
        // The Pairing Response: DisplayOnly, SC + MITM + bonding, 16-octet
        // keys, identity keys both ways (the LTK is derived, not sent).
        let expected = PairingFeatures(ioCapability: .displayOnly,
                                       authReq: AuthenticationRequirements(bonding: true, mitm: true, secureConnections: true),
                                       maxEncryptionKeySize: 16, initiatorKeys: .identityKey, responderKeys: .identityKey)
        #expect(phone.response == expected)
        let shown = h.shownPasskeys
        #expect(shown.count == 1)
        #expect(shown.first == phone.typedPasskey)
        // Responder order: public key after the phone's, 20 answers Cbi and
        // Nbi, Eb after Ea, then our keys first.
        #expect(h.sentByHeadUnit.first == .pairingResponse)
        #expect(h.sentByHeadUnit.filter { $0 == .pairingConfirm }.count == 20)
        #expect(h.sentByHeadUnit.filter { $0 == .pairingRandom }.count == 20)
        #expect(Array(h.sentByHeadUnit.suffix(3)) == [.pairingDHKeyCheck, .identityInformation, .identityAddressInformation])
        #expect(phone.sentKeysAfterTheirs == true)
        #expect(h.keyAnswers == [.replyLongTermKey(LongTermKey(bytes: phone.ltk)!)])

        let outcome = try #require(h.outcome)
        #expect(outcome.method == .passkeyEntry && outcome.secureConnections && outcome.mitm && outcome.keySize == 16)
        let bond = try #require(outcome.bond)
        #expect(bond.longTermKey.bytes == phone.ltk)
        #expect(bond.peerIRK == phone.irk)
        #expect(bond.peerIdentityAddress == phone.identityAddress)
        #expect(bond.localIRK == peripheralIdentity.irk)
        #expect(bond.localRole == .responder)
        #expect(bond.authenticated && bond.secureConnections && bond.ediv == 0 && bond.rand == 0)
        #expect(phone.receivedIRK == peripheralIdentity.irk)
        #expect(phone.receivedIdentityAddress == peripheralAddress)
        #expect(h.finalSecurity == LinkSecurity(keySize: 16, authenticated: true, secureConnections: true, bonded: true))
        #expect(h.peripheral.phase == .idle)
        #expect(h.peripheral.nextDeadline == nil)
    }

    /// Appendix D sample data with the roles of the sample: device A (key
    /// pair A, nonce N1, address A1) is the initiator, the head unit is B.
    @Test func specificationSampleDataAsResponderGivesSampleLTK() throws {
        let keyA = try P256KeyPair.fromPrivateKey(bigEndian: Sample.privateA)
        let keyB = try P256KeyPair.fromPrivateKey(bigEndian: Sample.privateB)
        let initiatorAddress = BluetoothAddress(littleEndian: spec(Sample.a1)[0..<6], kind: .public)!
        let responderAddress = BluetoothAddress(littleEndian: spec(Sample.a2)[0..<6], kind: .public)!
        let config = PairingConfiguration(ioCapability: .noInputNoOutput, allowDebugKeys: true)  // key A is the debug key
        let peripheral = SecurityManager(role: .responder, configuration: config, localAddress: responderAddress,
                                         peerAddress: initiatorAddress, random: .scripted([spec(Sample.n2)]),
                                         makeKeyPair: { () throws(CryptoError) -> P256KeyPair in keyB })
        let phone = try TestInitiatorPhone(phone: initiatorAddress, headUnit: responderAddress, keyPair: keyA)
        phone.ioCapability = .noInputNoOutput
        phone.authReq = AuthenticationRequirements(bonding: true, mitm: false, secureConnections: true)
        phone.nonces = [spec(Sample.n1)]
        var h = ResponderHarness(peripheral: peripheral, phone: phone)
        try h.pairFromSettings()

        #expect(h.failures.isEmpty)
        #expect(phone.dhKey == spec(Sample.dhKey))
        #expect(phone.macKey == spec(Sample.macKey))
        #expect(h.keyAnswers == [.replyLongTermKey(LongTermKey(bytes: spec(Sample.ltk))!)])
        #expect(h.outcome?.method == .justWorks)
        #expect(h.outcome?.bond?.longTermKey == LongTermKey(bytes: spec(Sample.ltk))!)
    }

    @Test func wrongPasskeyFailsWithConfirmValueFailed() throws {
        let phone = try makeIPhone()
        phone.typedPasskey = Passkey(123_456)  // whatever is shown, the user types this
        var h = ResponderHarness(peripheral: makePeripheral(), phone: phone)
        try h.pairFromSettings()
        let shown = h.shownPasskeys
        try #require(shown.first != Passkey(123_456))
        // The phone reveals Nai first: our check catches the wrong bit.
        #expect(phone.failedWith == .confirmValueFailed)
        #expect(h.failures == [.local(.confirmValueFailed)])
        #expect(h.keyAnswers.isEmpty)
        #expect(h.peripheral.phase == .idle)
        #expect(h.peripheral.nextDeadline == nil)
        // The rounds stop at the first bit that differs.
        let differing = (0..<20).first { (shown[0].value >> UInt32($0)) & 1 != (UInt32(123_456) >> UInt32($0)) & 1 }
        #expect(h.sentByHeadUnit.filter { $0 == .pairingRandom }.count == differing)
    }

    @Test func justWorksWhenConfiguredWithoutIO() throws {
        let phone = try makeIPhone()
        var h = ResponderHarness(peripheral: makePeripheral(PairingConfiguration(ioCapability: .noInputNoOutput,
                                                                                 localIdentity: peripheralIdentity)),
                                 phone: phone)
        try h.pairFromSettings()
        #expect(h.failures.isEmpty)
        #expect(phone.response?.ioCapability == .noInputNoOutput)
        #expect(phone.response?.authReq.mitm == false)
        #expect(h.outcome?.method == .justWorks)
        #expect(h.outcome?.bond?.authenticated == false)
        #expect(!h.events.contains { if case .displayPasskey = $0 { return true } else { return false } })
        // Cb right after our public key, Nb after the phone's Na.
        #expect(Array(h.sentByHeadUnit.prefix(4)) == [.pairingResponse, .pairingPublicKey, .pairingConfirm, .pairingRandom])
    }

    @Test func numericComparisonWaitsForTheUserBeforeEb() throws {
        let phone = try makeIPhone()
        var h = ResponderHarness(peripheral: makePeripheral(PairingConfiguration(ioCapability: .displayYesNo,
                                                                                 localIdentity: peripheralIdentity)),
                                 phone: phone)
        h.acceptNumericComparison = nil
        try h.pairFromSettings()
        #expect(phone.response?.ioCapability == .displayYesNo)
        let shown = h.events.compactMap { e -> Passkey? in
            if case .confirmNumericComparison(let p) = e { return p } else { return nil }
        }
        #expect(shown.count == 1)
        #expect(shown.first?.value == phone.numericValue)
        // The phone's Ea is in; ours waits for the user.
        #expect(h.peripheral.phase == .awaitingNumericConfirmation)
        #expect(!h.sentByHeadUnit.contains(.pairingDHKeyCheck))
        h.peripheral.confirmNumericComparison(true, now: h.now)
        try h.run()
        #expect(h.failures.isEmpty)
        #expect(h.outcome?.method == .numericComparison && h.outcome?.mitm == true)
    }

    @Test func rejectedNumericComparisonFailsPairing() throws {
        let phone = try makeIPhone()
        var h = ResponderHarness(peripheral: makePeripheral(PairingConfiguration(ioCapability: .displayYesNo)), phone: phone)
        h.acceptNumericComparison = false
        try h.pairFromSettings()
        #expect(phone.failedWith == .numericComparisonFailed)
        #expect(h.failures == [.local(.numericComparisonFailed)])
        #expect(h.keyAnswers.isEmpty)
    }

    /// A phone showing the passkey while the head unit has a keyboard: the
    /// phone's first commitment may come before our user has typed.
    @Test func passkeyTypedOnTheHeadUnitAnswersAnEarlyCommitment() throws {
        let phone = try makeIPhone()
        phone.ioCapability = .displayOnly
        phone.typedPasskey = Passkey(4_711)
        var h = ResponderHarness(peripheral: makePeripheral(PairingConfiguration(ioCapability: .keyboardOnly)), phone: phone)
        try h.pairFromSettings()
        #expect(h.peripheral.phase == .awaitingPasskeyInput)
        guard case .requestPasskey? = h.events.last else {
            Issue.record("no passkey request")
            return
        }
        h.peripheral.enterPasskey(Passkey(4_711), now: h.now)
        try h.run()
        #expect(h.failures.isEmpty)
        #expect(h.outcome?.method == .passkeyEntry)
    }
}

@Suite struct ResponderRefusalTests {
    /// The head unit's answer to one Pairing Request: Pairing Failed with
    /// `reason` and `.failed`, no Pairing Response.
    func expectRefusal(_ phone: TestInitiatorPhone, _ reason: PairingFailureReason,
                       configuration: PairingConfiguration = PairingConfiguration(localIdentity: peripheralIdentity)) throws {
        var h = ResponderHarness(peripheral: makePeripheral(configuration), phone: phone)
        try h.pairFromSettings()
        #expect(phone.failedWith == reason)
        #expect(h.failures == [.local(reason)])
        #expect(h.keyAnswers.isEmpty)
        #expect(h.peripheral.phase == .idle && h.peripheral.nextDeadline == nil)
    }

    @Test func shortKeyIsRefused() throws {
        let phone = try makeIPhone()
        phone.maxKeySize = 7
        try expectRefusal(phone, .encryptionKeySize)
        #expect(phone.response == nil)
        let outOfRange = try makeIPhone()
        outOfRange.maxKeySize = 17
        try expectRefusal(outOfRange, .invalidParameters)
    }

    @Test func debugKeyIsRefused() throws {
        let phone = try TestInitiatorPhone(phone: phoneRPA, headUnit: peripheralAddress,
                                           keyPair: P256KeyPair.fromPrivateKey(bigEndian: Sample.privateA))
        try expectRefusal(phone, .authenticationRequirements)
    }

    @Test func offCurvePublicKeyIsRefused() throws {
        let phone = try makeIPhone()
        var forged = phone.keyPair.publicKey.wireBytes
        for i in 32..<64 { forged[i] = 0 }  // keep X, zero Y: CVE-2018-5383
        phone.publicKeyOverride = P256PublicKey(wireBytes: forged)
        try expectRefusal(phone, .invalidParameters)
    }

    @Test func phoneWithoutSecureConnectionsIsRefused() throws {
        let phone = try makeIPhone()
        phone.authReq = AuthenticationRequirements(bonding: true, mitm: true, secureConnections: false)
        try expectRefusal(phone, .authenticationRequirements)
        // With legacy pairing allowed by policy the responder still cannot do it.
        let legacy = try makeIPhone()
        legacy.authReq = phone.authReq
        try expectRefusal(legacy, .pairingNotSupported,
                          configuration: PairingConfiguration(requireSecureConnections: false))
    }

    @Test func phoneWithoutIOCannotMeetRequiredMITM() throws {
        let phone = try makeIPhone()
        phone.ioCapability = .noInputNoOutput
        try expectRefusal(phone, .authenticationRequirements)
    }

    @Test func phoneClaimingOOBDataIsRefused() throws {
        let peripheral = makePeripheral()
        var features = PairingFeatures(ioCapability: .keyboardDisplay,
                                       authReq: AuthenticationRequirements(bonding: true, mitm: true, secureConnections: true),
                                       initiatorKeys: .identityKey, responderKeys: .identityKey)
        features.oobDataPresent = true
        peripheral.receive(SMPPDU.pairingRequest(features).encoded(), now: .zero)
        let outputs = peripheral.drainOutputs()
        #expect(sentPDUs(outputs) == [.pairingFailed(.oobNotAvailable)])
    }

    /// A phone that skips the Pairing Confirm of a round: Unspecified Reason.
    @Test func outOfOrderPDUsDuringPairingAbort() throws {
        let peripheral = makePeripheral()
        let phone = try makeIPhone()
        for pdu in phone.startPairing() { peripheral.receive(pdu, now: .zero) }
        #expect(peripheral.phase == .awaitingPublicKey)
        _ = peripheral.drainOutputs()
        peripheral.receive(SMPPDU.pairingRandom([UInt8](repeating: 7, count: 16)).encoded(), now: .zero)
        let outputs = peripheral.drainOutputs()
        #expect(sentPDUs(outputs) == [.pairingFailed(.unspecifiedReason)])
        #expect(outputs.contains { if case .failed(.local(.unspecifiedReason)) = $0 { return true } else { return false } })
        #expect(peripheral.phase == .idle)
    }

    /// Outside a pairing, stray PDUs change nothing and get no answer; a
    /// Pairing Response or Security Request (a responder's PDUs) from the
    /// phone is refused as not supported.
    @Test func strayPDUsWithoutPairingChangeNothing() throws {
        let peripheral = makePeripheral()
        for pdu: SMPPDU in [.pairingConfirm([UInt8](repeating: 1, count: 16)), .pairingDHKeyCheck([UInt8](repeating: 2, count: 16)),
                            .pairingFailed(.unspecifiedReason), .identityInformation(peripheralIdentity.irk)] {
            peripheral.receive(pdu.encoded(), now: .zero)
        }
        #expect(peripheral.drainOutputs().isEmpty)
        #expect(peripheral.phase == .idle && peripheral.nextDeadline == nil)
        peripheral.receive(SMPPDU.securityRequest(AuthenticationRequirements(rawValue: 0x0D)).encoded(), now: .zero)
        #expect(sentPDUs(peripheral.drainOutputs()) == [.pairingFailed(.commandNotSupported)])
        #expect(peripheral.phase == .idle)
    }

    /// The second Pairing Request during a pairing aborts it.
    @Test func secondPairingRequestAborts() throws {
        let peripheral = makePeripheral()
        let phone = try makeIPhone()
        for pdu in phone.startPairing() { peripheral.receive(pdu, now: .zero) }
        _ = peripheral.drainOutputs()
        for pdu in phone.startPairing() { peripheral.receive(pdu, now: .zero) }
        #expect(sentPDUs(peripheral.drainOutputs()) == [.pairingFailed(.unspecifiedReason)])
        #expect(peripheral.phase == .idle)
    }

    /// Vol 3 Part H 2.3.6: after a failure the phone must wait; a Pairing
    /// Request inside the interval is answered Repeated Attempts without
    /// lengthening it, and the next one after it pairs.
    @Test func repeatedAttemptsAreSpacedOut() throws {
        let limiter = PairingAttemptLimiter()
        let phone = try makeIPhone()
        phone.typedPasskey = Passkey(123_456)
        var h = ResponderHarness(peripheral: makePeripheral(limiter: limiter), phone: phone)
        try h.pairFromSettings()
        try #require(h.failures == [.local(.confirmValueFailed)])
        #expect(limiter.consecutiveFailures(phoneRPA) == 1)

        h.now = h.now.adding(milliseconds: 1_000)
        h.events = []
        phone.failedWith = nil
        phone.typedPasskey = nil
        try h.pairFromSettings()
        #expect(phone.failedWith == .repeatedAttempts)
        #expect(h.failures == [.local(.repeatedAttempts)])
        #expect(limiter.consecutiveFailures(phoneRPA) == 1)

        h.now = h.now.adding(milliseconds: 1_000)  // 2 s after the failure
        h.events = []
        phone.failedWith = nil
        try h.pairFromSettings()
        #expect(h.failures.isEmpty)
        #expect(h.outcome?.method == .passkeyEntry)
        #expect(limiter.consecutiveFailures(phoneRPA) == 0)
    }

    @Test func phoneThatFailsTooOftenIsRefused() throws {
        let limiter = PairingAttemptLimiter()
        var now = Instant(milliseconds: 1_000)
        while !limiter.hasGivenUp(phoneRPA) {
            limiter.recordFailure(phoneRPA, now: now)
            now = now.adding(seconds: 600)
        }
        let peripheral = makePeripheral(limiter: limiter)
        for pdu in try makeIPhone().startPairing() { peripheral.receive(pdu, now: now) }
        let outputs = peripheral.drainOutputs()
        #expect(sentPDUs(outputs) == [.pairingFailed(.repeatedAttempts)])
        #expect(outputs.contains { if case .failed(.tooManyAttempts) = $0 { return true } else { return false } })
    }
}

@Suite struct ResponderTimerTests {
    /// The timer starts with the Pairing Request and restarts on every PDU
    /// we queue, never on one we receive.
    @Test func theTimerRestartsWhenWeSend() throws {
        let peripheral = makePeripheral()
        let phone = try makeIPhone()
        for pdu in phone.startPairing() { peripheral.receive(pdu, now: Instant(milliseconds: 1_000)) }
        #expect(peripheral.nextDeadline == Instant(milliseconds: 31_000))
        let responseBytes = peripheral.drainOutputs()
        guard case .send(let bytes)? = responseBytes.first else {
            Issue.record("no Pairing Response")
            return
        }
        for pdu in try phone.handle(bytes) { peripheral.receive(pdu, now: Instant(milliseconds: 20_000)) }
        #expect(sentPDUs(peripheral.drainOutputs()).count == 1)  // our public key
        #expect(peripheral.nextDeadline == Instant(milliseconds: 50_000))
        let keypress = SMPPDU.keypressNotification(.digitEntered).encoded()
        peripheral.receive(keypress, now: Instant(milliseconds: 40_000))
        #expect(peripheral.nextDeadline == Instant(milliseconds: 50_000))
        peripheral.handleTimeout(now: Instant(milliseconds: 50_000))
        let outputs = peripheral.drainOutputs()
        guard outputs.count == 1, case .failed(.timeout) = outputs[0] else {
            Issue.record("expected a timeout failure only")
            return
        }
        #expect(peripheral.phase == .timedOut)
        // Nothing more on this link.
        for pdu in phone.startPairing() { peripheral.receive(pdu, now: Instant(milliseconds: 51_000)) }
        peripheral.secure(now: Instant(milliseconds: 52_000))
        #expect(peripheral.drainOutputs().isEmpty)
        #expect(peripheral.longTermKeyRequested(ediv: 0, rand: 0, now: Instant(milliseconds: 53_000)) == .refuseLongTermKey)
    }
}

@Suite struct SecurityRequestTests {
    @Test func secureSendsASecurityRequestAndThePhonePairs() throws {
        let phone = try makeIPhone()
        let peripheral = makePeripheral()
        var h = ResponderHarness(peripheral: peripheral, phone: phone)
        peripheral.secure(now: h.now)
        #expect(peripheral.phase == .awaitingPairingRequest)
        #expect(peripheral.nextDeadline == h.now.adding(seconds: 30))
        let first = peripheral.pollOutput()
        guard case .send(let bytes)? = first else {
            Issue.record("no Security Request")
            return
        }
        #expect(bytes == [0x0B, 0x0D])  // bonding, MITM, SC
        h.deliver(try phone.handle(bytes))  // the phone answers with a Pairing Request
        try h.run()
        #expect(h.failures.isEmpty)
        #expect(h.outcome?.method == .passkeyEntry)
        #expect(h.outcome?.bond != nil)
    }

    @Test func securityRequestTimesOutWhenThePhoneDoesNothing() {
        let peripheral = makePeripheral()
        peripheral.secure(now: .zero)
        #expect(sentPDUs(peripheral.drainOutputs()).count == 1)
        peripheral.secure(now: Instant(milliseconds: 10_000))  // already asked: not again
        #expect(peripheral.drainOutputs().isEmpty)
        peripheral.handleTimeout(now: Instant(milliseconds: 30_000))
        #expect(peripheral.phase == .timedOut)
    }

    /// A declined Security Request counts as a failed attempt: asking again
    /// waits for the back-off instead of ping-ponging with the phone.
    @Test func phoneDecliningTheSecurityRequestIsReportedAndBacksOff() {
        let limiter = PairingAttemptLimiter()
        let peripheral = makePeripheral(limiter: limiter)
        peripheral.secure(now: .zero)
        _ = peripheral.drainOutputs()
        peripheral.receive(SMPPDU.pairingFailed(.pairingNotSupported).encoded(), now: .zero)
        let outputs = peripheral.drainOutputs()
        #expect(outputs.count == 1)
        #expect(outputs.contains { if case .failed(.remote(.pairingNotSupported)) = $0 { return true } else { return false } })
        #expect(peripheral.phase == .idle)
        #expect(limiter.consecutiveFailures(phoneRPA) == 1)
        peripheral.secure(now: .zero)
        #expect(peripheral.drainOutputs().isEmpty)
        #expect(peripheral.phase == .waitingToRetry)
        peripheral.handleTimeout(now: Instant(milliseconds: 2_000))
        #expect(sentPDUs(peripheral.drainOutputs()) == [.securityRequest(AuthenticationRequirements(rawValue: 0x0D))])
    }
}

@Suite struct ResponderBondedTests {
    /// Pair, store, and the phone comes back with a new resolvable private
    /// address: found by its IRK, asked with a Security Request, and it
    /// encrypts with the stored LTK; no new pairing.
    @Test func bondedReconnectAnswersTheKeyRequest() throws {
        let phone = try makeIPhone()
        var h = ResponderHarness(peripheral: makePeripheral(), phone: phone)
        try h.pairFromSettings()
        let bond = try BondRecord.decode(try #require(h.outcome?.bond).encoded())
        #expect(bond.localRole == .responder)

        let rotated = try phone.irk.resolvablePrivateAddress(prand: RandomSource.system.bytes(3))
        let found = try #require(BondRecord.find(rotated, in: [BondRecordTests.minimal, bond]))
        #expect(found.peerIdentityAddress == phone.identityAddress)
        let peripheral = makePeripheral(peer: rotated, bond: found)
        peripheral.secure(now: .zero)
        #expect(sentPDUs(peripheral.drainOutputs()) == [.securityRequest(AuthenticationRequirements(rawValue: 0x0D))])
        // The phone has the bond: it starts encryption instead of pairing.
        #expect(peripheral.longTermKeyRequested(ediv: 0, rand: 0, now: .zero) == .replyLongTermKey(LongTermKey(bytes: phone.ltk)!))
        #expect(peripheral.phase == .encryptingWithBond)
        #expect(peripheral.nextDeadline == nil)
        peripheral.encryptionChanged(enabled: true, keySize: 16, now: .zero)
        let outputs = peripheral.drainOutputs()
        guard outputs.count == 1, case .encrypted(let security) = outputs[0] else {
            Issue.record("expected .encrypted only")
            return
        }
        #expect(security == LinkSecurity(keySize: 16, authenticated: true, secureConnections: true, bonded: true))
    }

    /// The phone may encrypt unasked, as iOS does on reconnect.
    @Test func unaskedEncryptionWithTheBond() throws {
        let bond = BondedEncryptionTests().storedBond()
        let peripheral = makePeripheral(bond: bond)
        #expect(peripheral.longTermKeyRequested(ediv: 0, rand: 0, now: .zero) == .replyLongTermKey(bond.longTermKey))
        peripheral.encryptionChanged(enabled: true, keySize: 7, now: .zero)
        let outputs = peripheral.drainOutputs()
        #expect(outputs.contains { if case .failed(.keySizeTooSmall(7)) = $0 { return true } else { return false } })
        #expect(peripheral.linkSecurity == nil)
    }

    @Test func keyRequestsWeCannotAnswerAreRefused() throws {
        // No bond.
        #expect(makePeripheral().longTermKeyRequested(ediv: 0, rand: 0, now: .zero) == .refuseLongTermKey)
        // A Secure Connections bond is never asked for with EDIV/Rand set.
        let bond = BondedEncryptionTests().storedBond()
        let peripheral = makePeripheral(bond: bond)
        #expect(peripheral.longTermKeyRequested(ediv: 0x1234, rand: 1, now: .zero) == .refuseLongTermKey)
        #expect(peripheral.phase == .idle)
        // A legacy key the phone gave us as central is the phone's own.
        var legacy = bond
        legacy.secureConnections = false
        legacy.ediv = 0x1234
        legacy.rand = 1
        #expect(makePeripheral(bond: legacy).longTermKeyRequested(ediv: 0x1234, rand: 1, now: .zero) == .refuseLongTermKey)
        // The central never answers key requests.
        #expect(makeCentral(bond: bond).longTermKeyRequested(ediv: 0, rand: 0, now: .zero) == .refuseLongTermKey)
    }

    /// Right after the DHKey checks, the new key is asked for with EDIV and
    /// Rand zero; anything else is refused and the pairing waits on.
    @Test func newKeyIsOnlyGivenForZeroEDIVAndRand() throws {
        let phone = try makeIPhone()
        var h = ResponderHarness(peripheral: makePeripheral(), phone: phone)
        h.encryptionKeySize = nil
        try h.pairFromSettings()
        #expect(h.peripheral.phase == .awaitingEncryption)
        #expect(h.peripheral.longTermKeyRequested(ediv: 1, rand: 0, now: h.now) == .refuseLongTermKey)
        #expect(h.peripheral.longTermKeyRequested(ediv: 0, rand: 0, now: h.now) == .replyLongTermKey(LongTermKey(bytes: phone.ltk)!))
    }
}
