import BluetoothCore

/// Phase 2 for LE Secure Connections (Vol 3 Part H 2.3.5.6) in the
/// initiator's order: public key exchange, authentication stage 1 (Just
/// Works / Numeric Comparison or 20 rounds of Passkey Entry), then the
/// DHKey checks (stage 2). The responder's order is in
/// SecurityManager+ResponderAuthentication.swift; the checks on the
/// phone's public key are shared.
extension SecurityManager {
    func startSecureConnections(now: Instant) {
        guard var ctx = pairing else { return }
        guard let keyPair = crypto(now, "P-256 key generation", newKeyPair) else { return }
        ctx.keyPair = keyPair
        pairing = ctx
        phase = .awaitingPublicKey
        send(.pairingPublicKey(keyPair.publicKey), now: now)
    }

    func peerPublicKey(_ key: P256PublicKey, now: Instant) {
        guard var ctx = pairing, let keyPair = ctx.keyPair else { return }
        guard let dhKey = sharedSecret(with: key, ours: keyPair, now: now) else { return }
        ctx.dhKey = dhKey
        ctx.peerPublicKey = key
        pairing = ctx
        switch ctx.selection.method {
        case .justWorks, .numericComparison:
            // The responder commits first with Cb.
            phase = .awaitingConfirm
        case .passkeyEntry:
            if preparePasskey(now: now) { sendPasskeyConfirm(now: now) }
        }
    }

    /// The DHKey with the phone's public key, after the checks both roles
    /// make on it; nil after aborting the pairing.
    func sharedSecret(with key: P256PublicKey, ours keyPair: P256KeyPair, now: Instant) -> [UInt8]? {
        if key == P256PublicKey.debugKey && !configuration.allowDebugKeys {
            Log.warning("smp", "phone uses the SC debug key: its traffic would be readable by anyone; refused")
            fail(.authenticationRequirements, now: now)
            return nil
        }
        if key.x == keyPair.publicKey.x {
            // Our own key reflected back: an impersonation attempt.
            Log.warning("smp", "phone's public key equals ours; refused")
            fail(.invalidParameters, now: now)
            return nil
        }
        do {
            return try keyPair.dhKey(with: key)
        } catch {
            if error == .publicKeyNotOnCurve {
                Log.warning("smp", "phone's public key is not on P-256 (invalid-curve attack); refused")
                fail(.invalidParameters, now: now)
            } else {
                Log.error("smp", "ECDH: \(error)")
                fail(.unspecifiedReason, now: now)
            }
            return nil
        }
    }

    /// Passkey Entry round i: commit to bit i with Cai = f4(PKax, PKbx, Nai, 0x80|bit).
    func sendPasskeyConfirm(now: Instant) {
        guard let confirm = passkeyCommitment(now: now) else { return }
        phase = .awaitingConfirm
        send(.pairingConfirm(confirm), now: now)
    }

    /// Our commitment of a Passkey Entry round, from a fresh nonce (kept in
    /// the context): f4(our PKx, their PKx, our nonce, 0x80|bit) in either
    /// role. nil after aborting the pairing.
    func passkeyCommitment(now: Instant) -> [UInt8]? {
        guard var ctx = pairing, let local = ctx.keyPair?.publicKey, let peer = ctx.peerPublicKey,
              let passkey = ctx.passkey else { return nil }
        guard let nonce = freshNonce(now) else { return nil }
        ctx.localNonce = nonce
        let r = Self.passkeyBit(passkey, round: ctx.passkeyRound)
        guard let confirm = crypto(now, "f4", { () throws(CryptoError) -> [UInt8] in
            try SMPCrypto.f4(u: local.x, v: peer.x, x: nonce, z: r)
        }) else { return nil }
        pairing = ctx
        return confirm
    }

    /// The z of f4 in Passkey Entry round i: 0x80 | bit i of the passkey.
    static func passkeyBit(_ passkey: Passkey, round: Int) -> UInt8 {
        0x80 | UInt8(truncatingIfNeeded: (passkey.value >> UInt32(round)) & 1)
    }

    func peerConfirm(_ value: [UInt8], now: Instant) {
        guard var ctx = pairing else { return }
        ctx.peerConfirm = value
        // Just Works / Numeric Comparison: Na is drawn only now, after the
        // phone committed to Nb. Passkey rounds and legacy pairing committed
        // to our nonce already; it is revealed as is.
        if ctx.secureConnections && ctx.selection.method != .passkeyEntry {
            guard let nonce = freshNonce(now) else { return }
            ctx.localNonce = nonce
        }
        pairing = ctx
        phase = .awaitingRandom
        send(.pairingRandom(ctx.localNonce), now: now)
    }

    func peerRandom(_ value: [UInt8], now: Instant) {
        guard var ctx = pairing else { return }
        ctx.peerNonce = value
        pairing = ctx
        guard ctx.secureConnections else {
            legacyPeerRandom(now: now)
            return
        }
        guard let local = ctx.keyPair?.publicKey, let peer = ctx.peerPublicKey else { return }
        let z: UInt8
        if ctx.selection.method == .passkeyEntry, let passkey = ctx.passkey {
            z = Self.passkeyBit(passkey, round: ctx.passkeyRound)
        } else {
            z = 0
        }
        guard let expected = crypto(now, "f4", { () throws(CryptoError) -> [UInt8] in
            try SMPCrypto.f4(u: peer.x, v: local.x, x: value, z: z)
        }) else { return }
        guard constantTimeEqual(expected, ctx.peerConfirm) else {
            if ctx.selection.method == .passkeyEntry {
                Log.warning("smp", "phone's confirm value does not match in passkey round \(ctx.passkeyRound) (wrong passkey?)")
            } else {
                Log.warning("smp", "phone's confirm value does not match its random value")
            }
            fail(.confirmValueFailed, now: now)
            return
        }
        switch ctx.selection.method {
        case .justWorks:
            sendDHKeyCheck(now: now)
        case .numericComparison:
            guard let value = crypto(now, "g2", { () throws(CryptoError) -> UInt32 in
                try SMPCrypto.g2(u: local.x, v: peer.x, x: ctx.localNonce, y: ctx.peerNonce)
            }) else { return }
            phase = .awaitingNumericConfirmation
            emit(.confirmNumericComparison(Passkey(truncating: value)))
        case .passkeyEntry:
            ctx.passkeyRound += 1
            pairing = ctx
            if ctx.passkeyRound < 20 {
                sendPasskeyConfirm(now: now)
            } else {
                sendDHKeyCheck(now: now)
            }
        }
    }

    /// Stage 2: derive MacKey and LTK with f5 and send Ea.
    func sendDHKeyCheck(now: Instant) {
        guard var ctx = pairing else { return }
        let a = SMPAddress.f5Form(localAddress)
        let b = SMPAddress.f5Form(peerAddress)
        guard let keys = crypto(now, "f5", { () throws(CryptoError) -> (macKey: [UInt8], ltk: [UInt8]) in
            try SMPCrypto.f5(w: ctx.dhKey, n1: ctx.localNonce, n2: ctx.peerNonce, a1: a, a2: b)
        }) else { return }
        ctx.macKey = keys.macKey
        ctx.secureConnectionsLTK = LongTermKey(bytes: keys.ltk)
        let r = ctx.passkey?.f6Value ?? [UInt8](repeating: 0, count: 16)
        guard let ea = crypto(now, "f6", { () throws(CryptoError) -> [UInt8] in
            try SMPCrypto.f6(w: keys.macKey, n1: ctx.localNonce, n2: ctx.peerNonce, r: r,
                             ioCap: ctx.request.f6IOCap, a1: a, a2: b)
        }) else { return }
        pairing = ctx
        phase = .awaitingDHKeyCheck
        send(.pairingDHKeyCheck(ea), now: now)
    }

    func peerDHKeyCheck(_ value: [UInt8], now: Instant) {
        guard let ctx = pairing, let response = ctx.response, let ltk = ctx.secureConnectionsLTK else { return }
        let a = SMPAddress.f5Form(localAddress)
        let b = SMPAddress.f5Form(peerAddress)
        let r = ctx.passkey?.f6Value ?? [UInt8](repeating: 0, count: 16)
        guard let expected = crypto(now, "f6", { () throws(CryptoError) -> [UInt8] in
            try SMPCrypto.f6(w: ctx.macKey, n1: ctx.peerNonce, n2: ctx.localNonce, r: r,
                             ioCap: response.f6IOCap, a1: b, a2: a)
        }) else { return }
        guard constantTimeEqual(expected, value) else {
            Log.warning("smp", "phone's DHKey check value does not match")
            fail(.dhKeyCheckFailed, now: now)
            return
        }
        let key = ltk.shortened(to: ctx.keySize)
        guard !key.isAllZero else {
            fail(.unspecifiedReason, now: now)
            return
        }
        phase = .awaitingEncryption
        emit(.startEncryption(ltk: key, ediv: 0, rand: 0))
    }
}
