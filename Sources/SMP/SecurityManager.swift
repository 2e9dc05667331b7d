import BluetoothCore

/// The Security Manager of one LE connection, in the role the link gives
/// the head unit: initiator when it is the central, responder when it is
/// the peripheral (`SecurityRole`). Sans-I/O: the owner feeds it received
/// SMP PDUs, the user's answers, link encryption events and time, and
/// drains `SecurityManagerOutput`s (PDUs to send, things to show, HCI
/// encryption to start or keys to hand the controller, results) with
/// `pollOutput()`.
///
/// Typical life on a connection:
///  1. `secure(now:)` after the connection is up. Initiator: encrypts with
///     the stored bond, or pairs (LE Secure Connections, Passkey Entry by
///     default). Responder: sends a Security Request; the phone then
///     encrypts with its bond or pairs (it may also do so unasked).
///  2. Feed every PDU from L2CAP CID 0x0006 to `receive(_:now:)`.
///  3. Responder only: answer every HCI LE Long Term Key Request with what
///     `longTermKeyRequested(ediv:rand:now:)` returns (`LongTermKeyAnswer`).
///  4. Report HCI Encryption Change / Encryption Key Refresh Complete with
///     `encryptionChanged(enabled:keySize:now:)`, a failed encryption with
///     `encryptionFailed(status:now:)`.
///  5. Call `handleTimeout(now:)` once `nextDeadline` has passed.
/// Drop the object when the link goes down.
public final class SecurityManager {
    /// The fixed L2CAP channel of the Security Manager Protocol on LE.
    public static let channelID: UInt16 = 0x0006

    public enum Phase: Equatable, CustomStringConvertible {
        case idle
        /// Responder: our Security Request is out; the phone pairs or encrypts.
        case awaitingPairingRequest
        /// A pairing waits for the repeated-attempts back-off to pass.
        case waitingToRetry
        case encryptingWithBond
        case awaitingPairingResponse
        case awaitingPublicKey
        case awaitingConfirm
        case awaitingRandom
        case awaitingPasskeyInput
        case awaitingNumericConfirmation
        case awaitingDHKeyCheck
        case awaitingEncryption
        case awaitingKeys
        /// The SMP timer expired: no more SMP on this link.
        case timedOut

        public var description: String {
            switch self {
            case .idle: return "idle"
            case .awaitingPairingRequest: return "awaiting Pairing Request"
            case .waitingToRetry: return "waiting to retry"
            case .encryptingWithBond: return "encrypting with bond"
            case .awaitingPairingResponse: return "awaiting Pairing Response"
            case .awaitingPublicKey: return "awaiting Pairing Public Key"
            case .awaitingConfirm: return "awaiting Pairing Confirm"
            case .awaitingRandom: return "awaiting Pairing Random"
            case .awaitingPasskeyInput: return "awaiting passkey input"
            case .awaitingNumericConfirmation: return "awaiting numeric comparison"
            case .awaitingDHKeyCheck: return "awaiting DHKey Check"
            case .awaitingEncryption: return "awaiting encryption"
            case .awaitingKeys: return "awaiting key distribution"
            case .timedOut: return "timed out"
            }
        }

        /// A pairing procedure is running (the SMP timer is armed).
        public var isPairing: Bool {
            switch self {
            case .idle, .waitingToRetry, .encryptingWithBond, .timedOut: return false
            default: return true
            }
        }
    }

    public let role: SecurityRole
    public let configuration: PairingConfiguration
    /// Our address on this connection and the phone's, as used over the air
    /// (for a resolved connection the phone's resolvable private address,
    /// not its identity): they enter the confirm and check values.
    public let localAddress: BluetoothAddress
    public let peerAddress: BluetoothAddress
    /// The stored bond with this phone, and after pairing the new one.
    public internal(set) var bond: BondRecord?
    /// The security of the link while it is encrypted.
    public internal(set) var linkSecurity: LinkSecurity?
    public internal(set) var phase: Phase = .idle

    let limiter: PairingAttemptLimiter
    /// Who the repeated-attempts counters are kept for.
    let limiterKey: BluetoothAddress
    /// Responder: the identity of the bond the connection resolved to. A
    /// new pairing on this link must bring the same identity to replace
    /// it: the address was only a claim (iPhones broadcast theirs, anyone
    /// can replay one), the identity comes out of the pairing itself.
    let heldIdentity: BluetoothAddress?
    let random: RandomSource
    /// A fixed key pair's maker (tests); nil: a fresh pair from `random`.
    let makeKeyPair: (() throws(CryptoError) -> P256KeyPair)?
    var pairing: PairingContext?
    var pairingDeadline: Instant?
    var retryAt: Instant?
    private var outputs: [SecurityManagerOutput] = []

    /// - Parameters:
    ///   - role: `.initiator` on a link where we are the central,
    ///     `.responder` where we are the peripheral.
    ///   - bond: the stored bond for this phone (found by identity address or
    ///     by resolving its address with `BondRecord.find`), if any.
    ///   - limiter: shared across connections; a private one when omitted.
    ///   - random: where nonces, passkeys and (unless `makeKeyPair` is
    ///     given) the P-256 key pair come from: the system's by default;
    ///     the core passes its own, tests fixed or seeded ones.
    ///   - makeKeyPair: a fixed key pair (the specification's sample data).
    public init(role: SecurityRole = .initiator, configuration: PairingConfiguration,
                localAddress: BluetoothAddress, peerAddress: BluetoothAddress,
                bond: BondRecord? = nil, limiter: PairingAttemptLimiter = PairingAttemptLimiter(),
                random: RandomSource = .system,
                makeKeyPair: (() throws(CryptoError) -> P256KeyPair)? = nil) {
        self.role = role
        self.configuration = configuration
        self.localAddress = localAddress
        self.peerAddress = peerAddress
        self.bond = bond
        self.limiter = limiter
        self.limiterKey = bond?.peerIdentityAddress ?? peerAddress
        self.heldIdentity = role == .responder ? bond?.peerIdentityAddress : nil
        self.random = random
        self.makeKeyPair = makeKeyPair
    }

    /// The phone is pairing or encrypting right now (a pairing under way,
    /// or the bond's key handed to the controller): not a link that sits
    /// idle. Our own Security Request waiting for an answer does not count.
    public var peerIsSecuring: Bool {
        switch phase {
        case .idle, .awaitingPairingRequest, .waitingToRetry, .timedOut: return false
        default: return true
        }
    }

    /// The stored bond changed under this link (the owner deleted it, or a
    /// pairing on another link replaced it): use what is stored now, so
    /// the link never answers with a key the head unit no longer holds.
    public func storedBondChanged(_ stored: BondRecord?) {
        guard stored != bond else { return }
        Log.info("smp", "stored bond for \(peerAddress) " + (stored == nil ? "deleted" : "replaced") + "; the link follows")
        bond = stored
    }

    // MARK: Outputs and time

    /// Whether `pollOutput` has anything.
    public var hasOutput: Bool { !outputs.isEmpty }

    /// The next thing to do, oldest first; nil when there is nothing.
    public func pollOutput() -> SecurityManagerOutput? {
        outputs.isEmpty ? nil : outputs.removeFirst()
    }

    /// Everything queued, oldest first.
    public func drainOutputs() -> [SecurityManagerOutput] {
        defer { outputs = [] }
        return outputs
    }

    /// When `handleTimeout(now:)` wants to run.
    public var nextDeadline: Instant? {
        earliest(phase.isPairing ? pairingDeadline : nil, phase == .waitingToRetry ? retryAt : nil)
    }

    public func handleTimeout(now: Instant) {
        if phase.isPairing, let deadline = pairingDeadline, deadline <= now {
            Log.warning("smp", "pairing with \(peerAddress) timed out in \(phase); no more SMP on this link")
            pairing = nil
            pairingDeadline = nil
            phase = .timedOut
            limiter.recordFailure(limiterKey, now: now)
            emit(.failed(.timeout))
        }
        if phase == .waitingToRetry, let at = retryAt, at <= now {
            retryAt = nil
            phase = .idle
            startPairing(now: now)
        }
    }

    // MARK: Owner requests

    /// Makes the link secure. Initiator: encryption with the stored bond,
    /// else pairing. Responder: a Security Request, since only the phone
    /// can start either. Does nothing while that is already under way or done.
    public func secure(now: Instant) {
        guard phase == .idle, linkSecurity == nil else { return }
        switch role {
        case .initiator:
            if bond != nil { encryptWithBond() } else { startPairing(now: now) }
        case .responder:
            startPairing(now: now)
        }
    }

    /// Pairs even when a bond exists (the user asked to pair again, or the
    /// bond is too weak). The new bond replaces the old one when it is done.
    /// A responder can only ask, with a Security Request.
    public func pair(now: Instant) {
        guard phase == .idle || phase == .waitingToRetry else {
            Log.debug("smp", "pair request ignored in \(phase)")
            return
        }
        if phase == .waitingToRetry { phase = .idle }
        startPairing(now: now)
    }

    /// The user typed the passkey the phone shows (after `.requestPasskey`);
    /// nil when the user cancelled.
    public func enterPasskey(_ passkey: Passkey?, now: Instant) {
        guard phase == .awaitingPasskeyInput, var ctx = pairing else {
            Log.debug("smp", "passkey entered while not waiting for one; ignored")
            return
        }
        guard let passkey = passkey else {
            fail(.passkeyEntryFailed, now: now)
            return
        }
        ctx.passkey = passkey
        pairing = ctx
        if role == .responder {
            passkeyEnteredAsResponder(now: now)
        } else if ctx.secureConnections {
            sendPasskeyConfirm(now: now)
        } else {
            ctx.temporaryKey = passkey.f6Value
            pairing = ctx
            sendLegacyConfirm(now: now)
        }
    }

    /// The phone refused a request on this link for Insufficient
    /// Authentication or Insufficient Encryption (ATT 0x05 / 0x0F): it does
    /// not take the link as secure. An unencrypted link is encrypted (with
    /// the bond, else by pairing); an encrypted one carries keys the phone
    /// no longer accepts (it lost the bond, or wants an authenticated key),
    /// so it is paired again. Nothing happens while a procedure runs.
    public func peerRequiresSecurity(now: Instant) {
        guard phase == .idle else {
            Log.debug("smp", "phone asks for security during \(phase); already under way")
            return
        }
        if linkSecurity == nil {
            Log.info("smp", "phone \(peerAddress) refused the unencrypted link; securing it")
            secure(now: now)
        } else {
            Log.warning("smp", "phone \(peerAddress) refuses the link's keys; pairing again")
            startPairing(now: now)
        }
    }

    /// The user's answer to `.confirmNumericComparison`.
    public func confirmNumericComparison(_ accepted: Bool, now: Instant) {
        guard phase == .awaitingNumericConfirmation else {
            Log.debug("smp", "numeric comparison answer while not asking; ignored")
            return
        }
        guard accepted else {
            Log.info("smp", "user rejected the numeric comparison value")
            fail(.numericComparisonFailed, now: now)
            return
        }
        switch role {
        case .initiator: sendDHKeyCheck(now: now)
        case .responder: numericComparisonAcceptedAsResponder(now: now)
        }
    }

    /// Abandons a pairing in progress (the user pressed Cancel).
    public func cancel(now: Instant) {
        if phase == .waitingToRetry {
            phase = .idle
            retryAt = nil
            return
        }
        if phase == .awaitingPairingRequest {
            // Nothing to tell the phone: it was only asked.
            phase = .idle
            pairingDeadline = nil
            return
        }
        guard phase.isPairing, let ctx = pairing else { return }
        switch ctx.selection.method {
        case .passkeyEntry: fail(.passkeyEntryFailed, now: now)
        case .numericComparison: fail(.numericComparisonFailed, now: now)
        case .justWorks: fail(.unspecifiedReason, now: now)
        }
    }

    // MARK: Link events

    /// HCI Encryption Change (enabled) or Encryption Key Refresh Complete.
    /// `keySize`: the size the controller reports (Encryption Change v2 or
    /// Read Encryption Key Size); nil when it did not say. Every encryption,
    /// whether this Security Manager started it or not, must show a key of
    /// at least `minimumKeySize` octets (KNOB): a size not reported counts
    /// as 0, and the owner is told `.failed(.keySizeTooSmall)`.
    public func encryptionChanged(enabled: Bool, keySize: UInt8?, now: Instant) {
        guard enabled else {
            linkSecurity = nil
            Log.info("smp", "encryption off on link with \(peerAddress)")
            return
        }
        switch phase {
        case .encryptingWithBond:
            phase = .idle
            guard let bond = bond else { return }
            guard let size = acceptedKeySize(keySize, "encryption with the stored bond") else {
                emit(.failed(.keySizeTooSmall(keySize ?? 0)))
                return
            }
            limiter.recordEncryptionSuccess(limiterKey)
            let security = LinkSecurity(keySize: size, authenticated: bond.authenticated,
                                        secureConnections: bond.secureConnections, bonded: true)
            linkSecurity = security
            Log.info("smp", "link with \(peerAddress) encrypted with the stored bond")
            emit(.encrypted(security))
        case .awaitingEncryption:
            guard let ctx = pairing else { return }
            guard let size = acceptedKeySize(keySize, "encryption with the new key"), size >= ctx.keySize else {
                Log.error("smp", "controller reports a \(keySize.map { "\($0)-octet" } ?? "no") key, \(ctx.keySize) negotiated")
                fail(.encryptionKeySize, now: now)
                return
            }
            linkSecurity = LinkSecurity(keySize: size, authenticated: ctx.selection.method.providesMITMProtection,
                                        secureConnections: ctx.secureConnections, bonded: false)
            beginKeyDistribution(now: now)
        default:
            // Encryption nobody here asked for (a key refresh, a controller
            // acting on its own): the same key-size check, then remember it;
            // the bond we know of is the only key it can have been.
            Log.info("smp", "encryption on with \(peerAddress) outside a procedure (\(phase))")
            guard let size = acceptedKeySize(keySize, "encryption outside a procedure") else {
                linkSecurity = nil
                emit(.failed(.keySizeTooSmall(keySize ?? 0)))
                return
            }
            if linkSecurity == nil {
                linkSecurity = LinkSecurity(keySize: size, authenticated: bond?.authenticated ?? false,
                                            secureConnections: bond?.secureConnections ?? false, bonded: bond != nil)
            } else {
                linkSecurity?.keySize = size
            }
        }
    }

    /// The key size the controller reported, if it is large enough; nil
    /// (logged) when it is too small or was not reported.
    private func acceptedKeySize(_ keySize: UInt8?, _ what: String) -> UInt8? {
        guard let size = keySize else {
            Log.error("smp", "\(what) with \(peerAddress): the controller did not report the key size; refusing the link")
            return nil
        }
        guard size >= configuration.minimumKeySize else {
            Log.error("smp", "\(what) with \(peerAddress) uses a \(size)-octet key; refusing the link")
            return nil
        }
        return size
    }

    /// HCI reported a failed encryption (Encryption Change with an error
    /// status, or a failed LE Enable Encryption command).
    public func encryptionFailed(status: UInt8, now: Instant) {
        switch phase {
        case .encryptingWithBond:
            phase = .idle
            let pinOrKeyMissing: UInt8 = 0x06
            if status == pinOrKeyMissing, let stale = bond {
                // Only a claim: whoever answers at the phone's address can
                // say it. This link stops using the bond and pairs again;
                // the stored bond stays until that pairing completes.
                bond = nil
                Log.warning("smp", "phone \(stale.peerIdentityAddress) says it has no keys for our bond; pairing again")
                emit(.peerLostKeys(stale))
                guard configuration.pairAgainWhenPeerForgetsBond else { return }
                guard limiter.recordStaleBond(limiterKey, now: now) else {
                    Log.error("smp", "phone \(stale.peerIdentityAddress) keeps forgetting its bond; not pairing again")
                    emit(.failed(.tooManyAttempts))
                    return
                }
                startPairing(now: now)
            } else {
                Log.warning("smp", "encryption with the stored bond failed, status 0x" + hex(status, digits: 2))
                emit(.failed(.encryption(status: status)))
            }
        case .awaitingEncryption:
            Log.warning("smp", "encryption with the new key failed, status 0x" + hex(status, digits: 2))
            abort(sending: .unspecifiedReason, report: .encryption(status: status), now: now)
        default:
            Log.info("smp", "encryption failure 0x" + hex(status, digits: 2) + " outside a procedure; ignored")
        }
    }

    // MARK: Received PDUs

    /// One SMP PDU received on L2CAP CID 0x0006.
    public func receive(_ bytes: [UInt8], now: Instant) {
        guard phase != .timedOut else {
            Log.debug("smp", "PDU after the SMP timeout ignored")
            return
        }
        let pdu: SMPPDU
        do {
            pdu = try SMPPDU.decode(bytes)
        } catch {
            // The bytes themselves may hold key material: log only their shape.
            Log.warning("smp", "malformed PDU from \(peerAddress): \(error)")
            if phase.isPairing {
                fail(error.failureReason, now: now)
            } else if case .unknownCode = error {
                send(.pairingFailed(.commandNotSupported), now: now)
            }
            return
        }
        switch pdu {
        case .pairingFailed(let reason):
            peerFailed(reason, now: now)
        case .securityRequest(let authReq) where role == .initiator:
            securityRequest(authReq, now: now)
        case .pairingRequest(let features) where role == .responder:
            pairingRequest(features, bytes: bytes, now: now)
        case .pairingRequest, .securityRequest:
            // Each goes from one role only (Vol 3 Part H 3.5.1, 3.6.7).
            Log.warning("smp", "phone sent \(pdu.code) to the \(role)")
            if phase.isPairing && pairing != nil {
                fail(.commandNotSupported, now: now)
            } else {
                emit(.send(SMPPDU.pairingFailed(.commandNotSupported).encoded()))
            }
        case .keypressNotification(let type):
            Log.debug("smp", "phone keypress notification \(type.rawValue)")
        default:
            dispatch(pdu, now: now)
        }
    }

    private func dispatch(_ pdu: SMPPDU, now: Instant) {
        switch (phase, pdu) {
        case (.awaitingPairingResponse, .pairingResponse(let features)):
            pairingResponse(features, now: now)
        case (.awaitingPublicKey, .pairingPublicKey(let key)):
            if role == .initiator { peerPublicKey(key, now: now) } else { publicKeyFromInitiator(key, now: now) }
        case (.awaitingConfirm, .pairingConfirm(let value)):
            if role == .initiator { peerConfirm(value, now: now) } else { confirmFromInitiator(value, now: now) }
        case (.awaitingRandom, .pairingRandom(let value)):
            if role == .initiator { peerRandom(value, now: now) } else { randomFromInitiator(value, now: now) }
        case (.awaitingDHKeyCheck, .pairingDHKeyCheck(let value)):
            if role == .initiator { peerDHKeyCheck(value, now: now) } else { dhKeyCheckFromInitiator(value, now: now) }
        case (.awaitingPasskeyInput, .pairingConfirm(let value)) where role == .responder:
            // The phone may commit before our user has typed the passkey.
            keepEarlyPeerValue(confirm: value, now: now)
        case (.awaitingNumericConfirmation, .pairingDHKeyCheck(let value)) where role == .responder:
            // Ea comes before our user answers; Eb waits for the answer.
            keepEarlyPeerValue(dhKeyCheck: value, now: now)
        case (.awaitingKeys, _) where SecurityManager.isKeyDistribution(pdu):
            distributedKey(pdu, now: now)
        case (.awaitingEncryption, _) where SecurityManager.isKeyDistribution(pdu):
            bufferEarlyKey(pdu, now: now)
        default:
            if phase.isPairing && pairing != nil {
                Log.warning("smp", "\(pdu.code) out of order (\(phase)); aborting pairing")
                fail(.unspecifiedReason, now: now)
            } else {
                Log.info("smp", "\(pdu.code) with no pairing in progress; ignored")
            }
        }
    }

    private func peerFailed(_ reason: PairingFailureReason, now: Instant) {
        if phase == .awaitingPairingRequest {
            // The phone declines our Security Request (e.g. Pairing Not
            // Supported). It counts as a failed attempt: asking again at
            // once would only ping-pong, so the next request backs off.
            Log.warning("smp", "phone \(peerAddress) declined the Security Request: \(reason)")
            finishFailure(.remote(reason), now: now)
            return
        }
        guard phase.isPairing else {
            Log.info("smp", "Pairing Failed (\(reason)) with no pairing in progress")
            return
        }
        Log.warning("smp", "phone \(peerAddress) failed pairing: \(reason)")
        finishFailure(.remote(reason), now: now)
    }

    /// The phone asks for security (Vol 3 Part H 3.6.7): encrypt with the
    /// bond when it is good enough, pair otherwise.
    private func securityRequest(_ authReq: AuthenticationRequirements, now: Instant) {
        guard phase == .idle else {
            Log.debug("smp", "Security Request during \(phase); already under way")
            return
        }
        if let security = linkSecurity {
            if (!authReq.mitm || security.authenticated) && (!authReq.secureConnections || security.secureConnections) {
                Log.debug("smp", "Security Request on a link that is already secure enough")
                return
            }
            Log.info("smp", "phone asks for stronger security than the link has; pairing again")
            startPairing(now: now)
            return
        }
        if let bond = bond, !authReq.mitm || bond.authenticated {
            encryptWithBond()
            return
        }
        if bond != nil { Log.info("smp", "phone asks for MITM protection the stored bond lacks; pairing again") }
        startPairing(now: now)
    }

    // MARK: Shared steps

    private func encryptWithBond() {
        guard let bond = bond else { return }
        phase = .encryptingWithBond
        Log.info("smp", "encrypting with the stored bond of \(bond.peerIdentityAddress)")
        emit(.startEncryption(ltk: bond.longTermKey, ediv: bond.ediv, rand: bond.rand))
    }

    func emit(_ output: SecurityManagerOutput) { outputs.append(output) }

    /// Queues a PDU; every PDU sent during pairing restarts the SMP timer.
    func send(_ pdu: SMPPDU, now: Instant) {
        emit(.send(pdu.encoded()))
        if phase.isPairing { restartTimer(now) }
    }

    /// Vol 3 Part H 3.4: the timer starts with the Pairing Request (sent as
    /// initiator, answered at once as responder) or our Security Request,
    /// and restarts on every PDU queued for transmission, in either role,
    /// never on a received one: a phone sending
    /// Keypress Notifications (or anything needing no answer) forever
    /// cannot hold the pairing open past 30 s after our last PDU.
    private func restartTimer(_ now: Instant) {
        pairingDeadline = now.adding(milliseconds: configuration.timeoutMilliseconds)
    }

    /// Aborts the pairing: Pairing Failed to the phone, `.failed` to the owner.
    func fail(_ reason: PairingFailureReason, now: Instant) {
        abort(sending: reason, report: .local(reason), now: now)
    }

    func abort(sending reason: PairingFailureReason, report failure: PairingFailure, now: Instant) {
        Log.warning("smp", "pairing with \(peerAddress) failed: \(failure)")
        emit(.send(SMPPDU.pairingFailed(reason).encoded()))
        finishFailure(failure, now: now)
    }

    func finishFailure(_ failure: PairingFailure, now: Instant) {
        pairing = nil
        pairingDeadline = nil
        phase = .idle
        limiter.recordFailure(limiterKey, now: now)
        emit(.failed(failure))
    }

    /// Runs a toolbox step; a failure aborts the pairing and gives nil.
    func crypto<T>(_ now: Instant, _ what: String, _ body: () throws(CryptoError) -> T) -> T? {
        do {
            return try body()
        } catch {
            Log.error("smp", what + ": \(error)")
            fail(.unspecifiedReason, now: now)
            return nil
        }
    }

    /// This pairing's P-256 key pair: the fixed one given, else a fresh
    /// one whose private key is drawn from `random`.
    func newKeyPair() throws(CryptoError) -> P256KeyPair {
        if let makeKeyPair { return try makeKeyPair() }
        return try P256KeyPair.generate(random: random)
    }

    /// A 128-bit nonce (Na, Nai, Mrand); nil after aborting the pairing.
    func freshNonce(_ now: Instant) -> [UInt8]? {
        crypto(now, "nonce", { () throws(CryptoError) -> [UInt8] in try random.bytes(16) })
    }

    static func isKeyDistribution(_ pdu: SMPPDU) -> Bool {
        switch pdu.code {
        case .encryptionInformation, .centralIdentification, .identityInformation, .identityAddressInformation,
             .signingInformation:
            return true
        default:
            return false
        }
    }
}
