import BluetoothCore

/// Phase 2 for LE legacy pairing (Vol 3 Part H 2.3.5.2-2.3.5.5), used only
/// when the phone lacks Secure Connections and the policy allows it.
extension SecurityManager {
    func startLegacyPairing(now: Instant) {
        guard var ctx = pairing else { return }
        switch ctx.selection.method {
        case .justWorks, .numericComparison:
            ctx.temporaryKey = [UInt8](repeating: 0, count: 16)
            pairing = ctx
            sendLegacyConfirm(now: now)
        case .passkeyEntry:
            guard preparePasskey(now: now), var withPasskey = pairing, let passkey = withPasskey.passkey else { return }
            withPasskey.temporaryKey = passkey.f6Value
            pairing = withPasskey
            sendLegacyConfirm(now: now)
        }
    }

    /// Mconfirm = c1(TK, Mrand, preq, pres, iat, rat, ia, ra).
    func sendLegacyConfirm(now: Instant) {
        guard var ctx = pairing else { return }
        guard let nonce = freshNonce(now) else { return }
        ctx.localNonce = nonce
        guard let confirm = legacyConfirm(ctx, random: nonce, now: now) else { return }
        pairing = ctx
        phase = .awaitingConfirm
        send(.pairingConfirm(confirm), now: now)
    }

    func legacyPeerRandom(now: Instant) {
        guard let ctx = pairing else { return }
        guard let expected = legacyConfirm(ctx, random: ctx.peerNonce, now: now) else { return }
        guard constantTimeEqual(expected, ctx.peerConfirm) else {
            Log.warning("smp", "phone's legacy confirm value does not match" +
                (ctx.selection.method == .passkeyEntry ? " (wrong passkey?)" : ""))
            fail(.confirmValueFailed, now: now)
            return
        }
        guard let stk = crypto(now, "s1", { () throws(CryptoError) -> [UInt8] in
            try SMPCrypto.s1(k: ctx.temporaryKey, r1: ctx.peerNonce, r2: ctx.localNonce)
        }), let key = LongTermKey(bytes: stk)?.shortened(to: ctx.keySize), !key.isAllZero else {
            if phase.isPairing { fail(.unspecifiedReason, now: now) }
            return
        }
        phase = .awaitingEncryption
        emit(.startEncryption(ltk: key, ediv: 0, rand: 0))
    }

    private func legacyConfirm(_ ctx: PairingContext, random value: [UInt8], now: Instant) -> [UInt8]? {
        let ia = localAddress.littleEndianBytes
        let ra = peerAddress.littleEndianBytes
        let iat = SMPAddress.typeBit(localAddress)
        let rat = SMPAddress.typeBit(peerAddress)
        return crypto(now, "c1", { () throws(CryptoError) -> [UInt8] in
            try SMPCrypto.c1(k: ctx.temporaryKey, r: value, preq: ctx.preq, pres: ctx.pres,
                             iat: iat, rat: rat, ia: ia, ra: ra)
        })
    }
}
