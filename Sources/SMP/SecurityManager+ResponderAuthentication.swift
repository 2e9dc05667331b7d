import BluetoothCore

/// Phase 2 for LE Secure Connections (Vol 3 Part H 2.3.5.6) in the
/// responder's order: the phone sends its public key first and we answer
/// with ours; in Just Works / Numeric Comparison we commit first (Cb) and
/// reveal Nb after the phone's Na; in each Passkey Entry round the phone
/// commits first (Cai), we answer (Cbi), it reveals Nai, we check and
/// reveal Nbi; the phone sends its DHKey check Ea first, ours (Eb) answers it.
extension SecurityManager {
    func publicKeyFromInitiator(_ key: P256PublicKey, now: Instant) {
        guard var ctx = pairing else { return }
        guard let keyPair = crypto(now, "P-256 key generation", newKeyPair) else { return }
        guard let dhKey = sharedSecret(with: key, ours: keyPair, now: now) else { return }
        ctx.keyPair = keyPair
        ctx.dhKey = dhKey
        ctx.peerPublicKey = key
        pairing = ctx
        switch ctx.selection.method {
        case .justWorks, .numericComparison:
            send(.pairingPublicKey(keyPair.publicKey), now: now)
            // Cb = f4(PKbx, PKax, Nb, 0), sent right after our key.
            guard let nonce = freshNonce(now), let cb = crypto(now, "f4", { () throws(CryptoError) -> [UInt8] in
                try SMPCrypto.f4(u: keyPair.publicKey.x, v: key.x, x: nonce, z: 0)
            }) else { return }
            ctx.localNonce = nonce
            pairing = ctx
            phase = .awaitingRandom
            send(.pairingConfirm(cb), now: now)
        case .passkeyEntry:
            phase = .awaitingConfirm
            send(.pairingPublicKey(keyPair.publicKey), now: now)
            _ = preparePasskey(now: now)
        }
    }

    /// Passkey Entry: the phone's Cai for this round.
    func confirmFromInitiator(_ value: [UInt8], now: Instant) {
        guard var ctx = pairing, ctx.selection.method == .passkeyEntry else {
            Log.warning("smp", "Pairing Confirm from the phone outside Passkey Entry")
            fail(.unspecifiedReason, now: now)
            return
        }
        ctx.peerConfirm = value
        pairing = ctx
        answerPasskeyConfirm(now: now)
    }

    /// Cbi for the round whose Cai we hold.
    private func answerPasskeyConfirm(now: Instant) {
        guard let cbi = passkeyCommitment(now: now) else { return }
        phase = .awaitingRandom
        send(.pairingConfirm(cbi), now: now)
    }

    /// Our user typed the passkey the phone shows: answer the phone's
    /// commitment if it came already, else wait for it.
    func passkeyEnteredAsResponder(now: Instant) {
        guard let ctx = pairing else { return }
        if ctx.peerConfirm.isEmpty {
            phase = .awaitingConfirm
        } else {
            answerPasskeyConfirm(now: now)
        }
    }

    /// A value the phone sent ahead of our user: Cai while the passkey is
    /// being typed, Ea while the numeric comparison is on screen.
    func keepEarlyPeerValue(confirm: [UInt8]? = nil, dhKeyCheck: [UInt8]? = nil, now: Instant) {
        guard var ctx = pairing else { return }
        if let value = confirm {
            guard ctx.peerConfirm.isEmpty else {
                Log.warning("smp", "second Pairing Confirm before the passkey was entered")
                fail(.unspecifiedReason, now: now)
                return
            }
            ctx.peerConfirm = value
        }
        if let value = dhKeyCheck {
            guard ctx.earlyDHKeyCheck == nil else {
                Log.warning("smp", "second DHKey Check before the numeric comparison was answered")
                fail(.unspecifiedReason, now: now)
                return
            }
            ctx.earlyDHKeyCheck = value
        }
        pairing = ctx
    }

    /// The phone reveals Na (Nai): check its commitment where there is one,
    /// then reveal ours.
    func randomFromInitiator(_ value: [UInt8], now: Instant) {
        guard var ctx = pairing, let local = ctx.keyPair?.publicKey, let peer = ctx.peerPublicKey else { return }
        ctx.peerNonce = value
        switch ctx.selection.method {
        case .passkeyEntry:
            guard let passkey = ctx.passkey else { return }
            let z = Self.passkeyBit(passkey, round: ctx.passkeyRound)
            guard let expected = crypto(now, "f4", { () throws(CryptoError) -> [UInt8] in
                try SMPCrypto.f4(u: peer.x, v: local.x, x: value, z: z)
            }) else { return }
            guard constantTimeEqual(expected, ctx.peerConfirm) else {
                Log.warning("smp", "phone's confirm value does not match in passkey round \(ctx.passkeyRound) (wrong passkey?)")
                fail(.confirmValueFailed, now: now)
                return
            }
            ctx.peerConfirm = []
            ctx.passkeyRound += 1
            pairing = ctx
            phase = ctx.passkeyRound < 20 ? .awaitingConfirm : .awaitingDHKeyCheck
            send(.pairingRandom(ctx.localNonce), now: now)
        case .justWorks:
            // Only the initiator can check Cb; our check is the DHKey check.
            pairing = ctx
            phase = .awaitingDHKeyCheck
            send(.pairingRandom(ctx.localNonce), now: now)
        case .numericComparison:
            pairing = ctx
            guard let shown = crypto(now, "g2", { () throws(CryptoError) -> UInt32 in
                try SMPCrypto.g2(u: peer.x, v: local.x, x: value, y: ctx.localNonce)
            }) else { return }
            phase = .awaitingNumericConfirmation
            send(.pairingRandom(ctx.localNonce), now: now)
            emit(.confirmNumericComparison(Passkey(truncating: shown)))
        }
    }

    /// Our user accepted the value: check Ea if it came already.
    func numericComparisonAcceptedAsResponder(now: Instant) {
        guard var ctx = pairing else { return }
        phase = .awaitingDHKeyCheck
        if let early = ctx.earlyDHKeyCheck {
            ctx.earlyDHKeyCheck = nil
            pairing = ctx
            dhKeyCheckFromInitiator(early, now: now)
        }
    }

    /// Stage 2: derive MacKey and LTK with f5 (initiator's values first),
    /// check Ea, answer with Eb; the phone then starts encryption.
    func dhKeyCheckFromInitiator(_ ea: [UInt8], now: Instant) {
        guard var ctx = pairing, let response = ctx.response else { return }
        let a = SMPAddress.f5Form(peerAddress)
        let b = SMPAddress.f5Form(localAddress)
        guard let keys = crypto(now, "f5", { () throws(CryptoError) -> (macKey: [UInt8], ltk: [UInt8]) in
            try SMPCrypto.f5(w: ctx.dhKey, n1: ctx.peerNonce, n2: ctx.localNonce, a1: a, a2: b)
        }) else { return }
        let r = ctx.passkey?.f6Value ?? [UInt8](repeating: 0, count: 16)
        guard let expected = crypto(now, "f6", { () throws(CryptoError) -> [UInt8] in
            try SMPCrypto.f6(w: keys.macKey, n1: ctx.peerNonce, n2: ctx.localNonce, r: r,
                             ioCap: ctx.request.f6IOCap, a1: a, a2: b)
        }) else { return }
        guard constantTimeEqual(expected, ea) else {
            Log.warning("smp", "phone's DHKey check value does not match")
            fail(.dhKeyCheckFailed, now: now)
            return
        }
        guard let eb = crypto(now, "f6", { () throws(CryptoError) -> [UInt8] in
            try SMPCrypto.f6(w: keys.macKey, n1: ctx.localNonce, n2: ctx.peerNonce, r: r,
                             ioCap: response.f6IOCap, a1: b, a2: a)
        }) else { return }
        guard let ltk = LongTermKey(bytes: keys.ltk), !ltk.shortened(to: ctx.keySize).isAllZero else {
            fail(.unspecifiedReason, now: now)
            return
        }
        ctx.macKey = keys.macKey
        ctx.secureConnectionsLTK = ltk
        pairing = ctx
        phase = .awaitingEncryption
        send(.pairingDHKeyCheck(eb), now: now)
    }
}
