import BluetoothCore

/// What only the responder (the head unit as peripheral) does around the
/// pairing itself: ask for security with a Security Request (Vol 3 Part H
/// 3.6.7), answer the phone's Pairing Request (3.5.2), and decide what the
/// controller answers to an LE Long Term Key Request (Vol 4 Part E 7.7.65.5)
/// when the phone starts encryption.
extension SecurityManager {
    /// Asks the phone to secure the link: it encrypts with its bond or pairs.
    /// The SMP timer runs from here as from a Pairing Request.
    func sendSecurityRequest(now: Instant) {
        let authReq = AuthenticationRequirements(bonding: configuration.bonding, mitm: configuration.requestsMITM,
                                                 secureConnections: true)
        phase = .awaitingPairingRequest
        Log.info("smp", "asking \(peerAddress) to secure the link (Security Request)")
        send(.securityRequest(authReq), now: now)
    }

    /// The phone starts pairing: answer with our features, or refuse.
    func pairingRequest(_ request: PairingFeatures, bytes: [UInt8], now: Instant) {
        switch phase {
        case .idle, .awaitingPairingRequest, .waitingToRetry:
            break
        default:
            if phase.isPairing {
                Log.warning("smp", "Pairing Request during \(phase); aborting pairing")
                fail(.unspecifiedReason, now: now)
            } else {
                Log.warning("smp", "Pairing Request during \(phase); refused")
                emit(.send(SMPPDU.pairingFailed(.unspecifiedReason).encoded()))
            }
            return
        }
        retryAt = nil
        guard limiter.notBefore(limiterKey, now: now) == nil, !limiter.hasGivenUp(limiterKey) else {
            // Vol 3 Part H 2.3.6: within the waiting interval the answer is
            // Repeated Attempts, and the interval is not restarted.
            Log.warning("smp", "Pairing Request from \(peerAddress) too soon after failed attempts; refused")
            phase = .idle
            pairingDeadline = nil
            emit(.send(SMPPDU.pairingFailed(.repeatedAttempts).encoded()))
            emit(.failed(limiter.hasGivenUp(limiterKey) ? .tooManyAttempts : .local(.repeatedAttempts)))
            return
        }
        if let at = limiter.totalNotBefore(now: now) {
            // Too many attempts from all addresses together (a flood, or
            // one device rotating addresses): the same answer, for everyone.
            Log.warning("smp", "Pairing Request from \(peerAddress) refused: \(limiter.maximumAttemptsPerWindow) attempts "
                + "in the last \(limiter.windowMilliseconds / 1000) s; the next is taken in \(at.millisecondsSince(now)) ms")
            phase = .idle
            pairingDeadline = nil
            emit(.send(SMPPDU.pairingFailed(.repeatedAttempts).encoded()))
            emit(.failed(.local(.repeatedAttempts)))
            return
        }
        limiter.recordAttemptStart(now: now)
        var ctx = PairingContext(request: request, preq: bytes)
        pairing = ctx
        phase = .awaitingPublicKey
        Log.info("smp", "phone \(peerAddress) pairs as \(request.ioCapability); answering as \(configuration.ioCapability)")
        guard acceptsKeySize(request.maxEncryptionKeySize, now: now) else { return }
        guard acceptsBonding(request, now: now) else { return }
        guard request.authReq.secureConnections else {
            if configuration.requireSecureConnections {
                Log.warning("smp", "phone does not support LE Secure Connections; legacy pairing refused by policy")
                fail(.authenticationRequirements, now: now)
            } else {
                // Legacy pairing is built for the initiator only; every phone
                // that pairs from its settings has Secure Connections.
                Log.warning("smp", "phone does not support LE Secure Connections; legacy pairing as responder is not supported")
                fail(.pairingNotSupported, now: now)
            }
            return
        }
        guard acceptsOOBFlag(of: request, now: now) else { return }
        let response = pairingResponse(to: request)
        ctx.response = response
        ctx.pres = SMPPDU.pairingResponse(response).encoded()
        ctx.keySize = min(request.maxEncryptionKeySize, response.maxEncryptionKeySize)
        ctx.secureConnections = true
        ctx.selection = MethodSelection.select(initiator: request, responder: response, secureConnections: true)
            .seenByResponder
        guard meetsMITMPolicy(ctx.selection, peer: request, now: now) else { return }
        pairing = ctx
        Log.info("smp", "pairing method \(ctx.selection.method), LE Secure Connections, key size \(ctx.keySize)")
        send(.pairingResponse(response), now: now)
    }

    /// Our Pairing Response: our IO capability, Secure Connections, MITM and
    /// bonding as configured, 16-octet keys. Keys both ways when bonding:
    /// our IRK and identity address, and the phone's, so that each side
    /// recognises the other behind its resolvable private addresses. With
    /// Secure Connections neither side distributes an LTK (both derive it),
    /// and we sign nothing. CT2 stays clear: there is no BR/EDR transport
    /// to derive a link key for.
    private func pairingResponse(to request: PairingFeatures) -> PairingFeatures {
        let bonding = configuration.bonding && request.authReq.bonding
        let ours: KeyDistribution = bonding && configuration.localIdentity != nil ? .identityKey : .none
        let theirs: KeyDistribution = bonding ? .identityKey : .none
        return PairingFeatures(
            ioCapability: configuration.ioCapability,
            authReq: AuthenticationRequirements(bonding: configuration.bonding, mitm: configuration.requestsMITM,
                                                secureConnections: true),
            maxEncryptionKeySize: 16,
            initiatorKeys: request.initiatorKeys.intersection(theirs),
            responderKeys: request.responderKeys.intersection(ours))
    }

    /// The controller asks for the key of the encryption the phone starts
    /// (HCI LE Long Term Key Request on a link where we are the
    /// peripheral): the key just agreed or the stored bond's, or a refusal.
    public func longTermKeyRequested(ediv: UInt16, rand: UInt64, now: Instant) -> LongTermKeyAnswer {
        guard role == .responder else {
            Log.warning("smp", "Long Term Key Request on a link where we are the central; refused")
            return .refuseLongTermKey
        }
        switch phase {
        case .awaitingEncryption:
            // Secure Connections: the new LTK has EDIV and Rand zero.
            guard ediv == 0, rand == 0, let ctx = pairing, let ltk = ctx.secureConnectionsLTK else {
                Log.warning("smp", "Long Term Key Request with EDIV/Rand set after Secure Connections pairing; refused")
                return .refuseLongTermKey
            }
            return .replyLongTermKey(ltk.shortened(to: ctx.keySize))
        case .idle, .awaitingPairingRequest, .waitingToRetry:
            guard let bond = bond, bondAnswers(bond, ediv: ediv, rand: rand) else {
                Log.info("smp", bond == nil
                    ? "phone \(peerAddress) starts encryption but we hold no bond; refused"
                    : "phone \(peerAddress) starts encryption with a key we do not hold; refused")
                return .refuseLongTermKey
            }
            retryAt = nil
            pairingDeadline = nil
            phase = .encryptingWithBond
            Log.info("smp", "phone \(bond.peerIdentityAddress) encrypts with the stored bond")
            return .replyLongTermKey(bond.longTermKey)
        default:
            Log.warning("smp", "Long Term Key Request during \(phase); refused")
            return .refuseLongTermKey
        }
    }

    /// A Secure Connections LTK is asked for with EDIV and Rand zero; a
    /// legacy one by the EDIV and Rand that went with it, and only to the
    /// side that handed it out (a key the phone gave us as its own
    /// peripheral's is not ours to answer with).
    private func bondAnswers(_ bond: BondRecord, ediv: UInt16, rand: UInt64) -> Bool {
        if bond.secureConnections { return ediv == 0 && rand == 0 }
        return bond.localRole == .responder && bond.ediv == ediv && bond.rand == rand
    }
}
