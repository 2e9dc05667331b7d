import BluetoothCore

/// Phase 3 (Vol 3 Part H 3.6.1): on the encrypted link the responder sends
/// its keys first, then the initiator sends its own; then the bond is
/// complete. As initiator we wait for the phone's keys and answer with
/// ours; as responder we send ours at once and wait for the phone's.
extension SecurityManager {
    func beginKeyDistribution(now: Instant) {
        guard var ctx = pairing, let response = ctx.response else { return }
        var expected: [SMPCode] = []
        let keys = role == .initiator ? response.responderKeys : response.initiatorKeys
        // With Secure Connections both sides derive the LTK: EncKey is ignored.
        if !ctx.secureConnections && keys.contains(.encryptionKey) {
            expected += [.encryptionInformation, .centralIdentification]
        }
        if keys.contains(.identityKey) { expected += [.identityInformation, .identityAddressInformation] }
        if keys.contains(.signingKey) { expected += [.signingInformation] }
        ctx.expectedKeys = expected
        let early = ctx.earlyKeys
        ctx.earlyKeys = []
        pairing = ctx
        phase = .awaitingKeys
        if role == .responder { sendLocalKeys(now: now) }
        for pdu in early {
            guard phase == .awaitingKeys else { return }
            distributedKey(pdu, now: now)
        }
        if phase == .awaitingKeys, pairing?.expectedKeys.isEmpty ?? false { finishKeyDistribution(now: now) }
    }

    func bufferEarlyKey(_ pdu: SMPPDU, now: Instant) {
        guard var ctx = pairing else { return }
        guard ctx.earlyKeys.count < 8 else {
            fail(.unspecifiedReason, now: now)
            return
        }
        Log.debug("smp", "\(pdu.code) before the encryption change was reported; kept")
        ctx.earlyKeys.append(pdu)
        pairing = ctx
    }

    func distributedKey(_ pdu: SMPPDU, now: Instant) {
        guard var ctx = pairing else { return }
        guard ctx.expectedKeys.first == pdu.code else {
            Log.warning("smp", "unexpected \(pdu.code) during key distribution")
            fail(.unspecifiedReason, now: now)
            return
        }
        ctx.expectedKeys.removeFirst()
        switch pdu {
        case .encryptionInformation(let ltk):
            guard !ltk.isAllZero else {
                Log.warning("smp", "phone distributed an all-zero LTK; refused")
                fail(.keyRejected, now: now)
                return
            }
            ctx.peerLTK = ltk.shortened(to: ctx.keySize)
        case .centralIdentification(let ediv, let rand):
            ctx.peerEDIV = ediv
            ctx.peerRand = rand
        case .identityInformation(let irk):
            if irk.isAllZero {
                Log.info("smp", "phone distributed an all-zero IRK (no privacy); not used for resolution")
            } else {
                ctx.peerIRK = irk
            }
        case .identityAddressInformation(let address):
            if address.isRandom && !address.isStaticRandom {
                Log.warning("smp", "phone's identity address \(address) is not a static random address")
            }
            ctx.peerIdentityAddress = address
        default:
            break  // Signing Information: we do not sign data.
        }
        pairing = ctx
        if ctx.expectedKeys.isEmpty { finishKeyDistribution(now: now) }
    }

    /// Our IRK and identity address, when the agreed distribution has them.
    private func sendLocalKeys(now: Instant) {
        guard var ctx = pairing, let response = ctx.response else { return }
        let keys = role == .initiator ? response.initiatorKeys : response.responderKeys
        guard keys.contains(.identityKey), let identity = configuration.localIdentity else { return }
        send(.identityInformation(identity.irk), now: now)
        send(.identityAddressInformation(identity.address), now: now)
        ctx.distributedIdentity = identity
        pairing = ctx
    }

    func finishKeyDistribution(now: Instant) {
        if role == .initiator { sendLocalKeys(now: now) }
        guard let ctx = pairing else { return }
        let mitm = ctx.selection.method.providesMITMProtection
        let newBond = makeBond(ctx)
        pairing = nil
        pairingDeadline = nil
        phase = .idle
        if let held = heldIdentity, let identity = newBond?.peerIdentityAddress, identity != held {
            Log.warning("smp", "\(peerAddress) resolved to the bond of \(held) but paired as \(identity); "
                + "not bonded, the link is not used")
            linkSecurity = nil
            limiter.recordFailure(limiterKey, now: now)
            emit(.failed(.otherIdentity(identity)))
            return
        }
        limiter.recordPairingSuccess(limiterKey)
        if let newBond = newBond { bond = newBond }
        let security = LinkSecurity(keySize: linkSecurity?.keySize ?? ctx.keySize, authenticated: mitm,
                                    secureConnections: ctx.secureConnections, bonded: newBond != nil)
        linkSecurity = security
        Log.info("smp", "paired with \(newBond?.peerIdentityAddress ?? peerAddress): \(ctx.selection.method), "
            + (ctx.secureConnections ? "secure connections" : "legacy") + (mitm ? ", MITM" : "")
            + (newBond != nil ? ", bonded" : ", not bonded"))
        emit(.paired(PairingOutcome(method: ctx.selection.method, secureConnections: ctx.secureConnections,
                                    mitm: mitm, keySize: ctx.keySize, bond: newBond)))
        emit(.encrypted(security))
    }

    private func makeBond(_ ctx: PairingContext) -> BondRecord? {
        guard ctx.bondingAgreed else { return nil }
        let ltk: LongTermKey
        var ediv: UInt16 = 0
        var rand: UInt64 = 0
        if ctx.secureConnections {
            guard let key = ctx.secureConnectionsLTK else { return nil }
            ltk = key.shortened(to: ctx.keySize)
        } else {
            guard let key = ctx.peerLTK else {
                Log.warning("smp", "phone distributed no LTK: nothing to reconnect with, not bonded")
                return nil
            }
            ltk = key
            ediv = ctx.peerEDIV
            rand = ctx.peerRand
        }
        if ctx.peerIdentityAddress == nil && peerAddress.isResolvablePrivate && ctx.peerIRK == nil {
            Log.warning("smp", "phone gave no identity; the bond will not be recognised after its address changes")
        }
        return BondRecord(peerIdentityAddress: ctx.peerIdentityAddress ?? peerAddress, peerIRK: ctx.peerIRK,
                          longTermKey: ltk, ediv: ediv, rand: rand, keySize: ctx.keySize,
                          authenticated: ctx.selection.method.providesMITMProtection,
                          secureConnections: ctx.secureConnections, localIRK: ctx.distributedIdentity?.irk,
                          localRole: role)
    }
}
