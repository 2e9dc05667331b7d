import BluetoothCore

/// Phase 1 as initiator: Pairing Request / Pairing Response, and the policy
/// checks on what the phone offers. Starting a pairing is shared: the
/// responder's way to start one is a Security Request.
extension SecurityManager {
    func startPairing(now: Instant) {
        guard phase != .timedOut else {
            Log.warning("smp", "no pairing after an SMP timeout until the phone reconnects")
            return
        }
        if limiter.hasGivenUp(limiterKey) {
            Log.error("smp", "pairing with \(peerAddress) failed too often; remove the pairing on both sides")
            emit(.failed(.tooManyAttempts))
            return
        }
        if let at = earliestAllowed(now) {
            Log.info("smp", "pairing with \(peerAddress) deferred for \(at.millisecondsSince(now)) ms after failures")
            phase = .waitingToRetry
            retryAt = at
            return
        }
        switch role {
        case .initiator: sendPairingRequest(now: now)
        case .responder: sendSecurityRequest(now: now)
        }
    }

    /// When this link may start a pairing, by its own failures and by
    /// all attempts together (nil: now).
    private func earliestAllowed(_ now: Instant) -> Instant? {
        let own = limiter.notBefore(limiterKey, now: now)
        let total = role == .initiator ? limiter.totalNotBefore(now: now) : nil
        guard let own, let total else { return own ?? total }
        return own > total ? own : total
    }

    private func sendPairingRequest(now: Instant) {
        limiter.recordAttemptStart(now: now)
        let bonding = configuration.bonding
        let request = PairingFeatures(
            ioCapability: configuration.ioCapability,
            authReq: AuthenticationRequirements(bonding: bonding, mitm: configuration.requestsMITM,
                                                secureConnections: true),
            maxEncryptionKeySize: 16,
            initiatorKeys: bonding && configuration.localIdentity != nil ? .identityKey : .none,
            // The LTK (legacy only) and the phone's IRK and identity address.
            responderKeys: bonding ? KeyDistribution.encryptionKey.union(.identityKey) : .none)
        let pdu = SMPPDU.pairingRequest(request)
        pairing = PairingContext(request: request, preq: pdu.encoded())
        phase = .awaitingPairingResponse
        Log.info("smp", "pairing with \(peerAddress) as \(configuration.ioCapability)")
        send(pdu, now: now)
    }

    func pairingResponse(_ response: PairingFeatures, now: Instant) {
        guard var ctx = pairing else { return }
        ctx.response = response
        ctx.pres = SMPPDU.pairingResponse(response).encoded()

        guard acceptsKeySize(response.maxEncryptionKeySize, now: now) else { return }
        guard acceptsBonding(response, now: now) else { return }
        ctx.keySize = min(ctx.request.maxEncryptionKeySize, response.maxEncryptionKeySize)
        guard response.initiatorKeys.isSubset(of: ctx.request.initiatorKeys),
              response.responderKeys.isSubset(of: ctx.request.responderKeys) else {
            Log.warning("smp", "phone's key distribution asks for keys we did not offer")
            fail(.invalidParameters, now: now)
            return
        }
        ctx.secureConnections = ctx.request.authReq.secureConnections && response.authReq.secureConnections
        if !ctx.secureConnections {
            if configuration.requireSecureConnections {
                Log.warning("smp", "phone does not support LE Secure Connections; legacy pairing refused by policy")
                fail(.authenticationRequirements, now: now)
                return
            }
            Log.warning("smp", "phone does not support LE Secure Connections: using LE legacy pairing")
        } else if !acceptsOOBFlag(of: response, now: now) {
            return
        }
        ctx.selection = MethodSelection.select(initiator: ctx.request, responder: response,
                                               secureConnections: ctx.secureConnections)
        guard meetsMITMPolicy(ctx.selection, peer: response, now: now) else { return }
        pairing = ctx
        Log.info("smp", "pairing method \(ctx.selection.method), "
            + (ctx.secureConnections ? "LE Secure Connections" : "LE legacy") + ", key size \(ctx.keySize)")
        if ctx.secureConnections {
            startSecureConnections(now: now)
        } else {
            startLegacyPairing(now: now)
        }
    }

    // MARK: Policy checks of both roles

    /// The phone's maximum key size: 7...16 and at least our minimum.
    func acceptsKeySize(_ size: UInt8, now: Instant) -> Bool {
        guard (7...16).contains(size) else {
            Log.warning("smp", "phone offers maximum key size \(size)")
            fail(.invalidParameters, now: now)
            return false
        }
        guard size >= configuration.minimumKeySize else {
            // KNOB (CVE-2019-9506): a short key can be brute-forced.
            Log.warning("smp", "phone offers only \(size)-octet keys; refused")
            fail(.encryptionKeySize, now: now)
            return false
        }
        return true
    }

    /// Bonding=0 from the phone while we bond: refused with Pairing Failed
    /// (Authentication Requirements) before any passkey is shown. A link
    /// without a bond is never "the phone": iOS serves ANCS and AMS only on
    /// a bonded link, the phone could not come back without pairing again,
    /// and letting such a pairing finish would only hold the one phone slot
    /// and the passkey screen for nothing. Refusing here, rather than
    /// pairing and then dropping the link, tells the phone why and makes
    /// no keys at all.
    func acceptsBonding(_ features: PairingFeatures, now: Instant) -> Bool {
        guard configuration.bonding && !features.authReq.bonding else { return true }
        Log.warning("smp", "phone \(peerAddress) pairs without bonding (Bonding=0); refused: the phone must bond")
        fail(.authenticationRequirements, now: now)
        return false
    }

    /// With Secure Connections a set OOB flag on either side selects OOB,
    /// but we never hand out OOB data: the phone cannot have ours.
    func acceptsOOBFlag(of features: PairingFeatures, now: Instant) -> Bool {
        guard features.oobDataPresent else { return true }
        Log.warning("smp", "phone claims OOB data; none was exchanged")
        fail(.oobNotAvailable, now: now)
        return false
    }

    func meetsMITMPolicy(_ selection: MethodSelection, peer: PairingFeatures, now: Instant) -> Bool {
        guard configuration.requireMITM && !selection.method.providesMITMProtection else { return true }
        Log.warning("smp", "phone's IO capability \(peer.ioCapability) only allows Just Works; MITM protection required")
        fail(.authenticationRequirements, now: now)
        return false
    }

    /// Passkey Entry: show a fresh passkey, or ask the user to type the
    /// phone's. Returns false when we must wait for the user.
    func preparePasskey(now: Instant) -> Bool {
        guard var ctx = pairing else { return false }
        // The selection is kept as seen from our side in either role.
        if ctx.selection.passkeyRole == .display {
            guard let passkey = crypto(now, "passkey", { () throws(CryptoError) -> Passkey in try Passkey.random(random) }) else {
                return false
            }
            ctx.passkey = passkey
            pairing = ctx
            emit(.displayPasskey(passkey))
            return true
        }
        phase = .awaitingPasskeyInput
        emit(.requestPasskey)
        return false
    }
}
