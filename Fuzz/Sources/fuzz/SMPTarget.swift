import BluetoothCore
@testable import SMP

/// The head unit's Security Manager in every pairing state, as initiator
/// (central) and as responder (peripheral). The first input byte picks a
/// scenario: a role, a configuration, a phone, and the state a valid
/// exchange with that phone is stopped in. The rest is a script of fuzzed
/// PDUs (out of order, malformed, off-curve keys), encryption events, LTK
/// requests, time and user answers.
///
/// Properties: every PDU we send decodes; no all-zero key is ever used or
/// handed to the controller, and only a responder hands any; a pairing
/// that finishes meets the policy (key size, MITM, Secure Connections); a
/// pairing in progress always has its SMP timer armed; a timed-out link
/// stays silent.
enum SMPTarget {
    static let target = FuzzTarget(name: "smp", run: run, seeds: seeds)

    struct Scenario {
        let name: String
        var role: SecurityRole = .initiator
        let configuration: PairingConfiguration
        var phone: () -> FuzzPhone = { FuzzPhone(ioCapability: .keyboardDisplay) }
        /// The phone pairing the responder.
        var initiator: () -> FuzzInitiatorPhone = { FuzzInitiatorPhone() }
        var bonded = false
        var failedBefore = false
        /// Call secure(now:) first (a responder sends a Security Request;
        /// without it the phone pairs unasked).
        var secure = true
        /// Stop the valid exchange as soon as this holds.
        let stop: (SecurityManager) -> Bool
    }

    static let identity = LocalIdentity(irk: IdentityResolvingKey(bytes: [UInt8](repeating: 0x5A, count: 16))!,
                                        address: FuzzPhone.centralAddress)
    static let passkeyDisplay = PairingConfiguration(localIdentity: identity)
    static let keyboard = PairingConfiguration(ioCapability: .keyboardOnly, localIdentity: identity)
    static let yesNo = PairingConfiguration(ioCapability: .displayYesNo, localIdentity: identity)
    static let justWorks = PairingConfiguration(ioCapability: .noInputNoOutput)
    static let legacy = PairingConfiguration(ioCapability: .noInputNoOutput, requireSecureConnections: false, localIdentity: identity)

    static func phase(_ p: SecurityManager.Phase) -> (SecurityManager) -> Bool { { $0.phase == p } }

    static let scenarios: [Scenario] = {
        let keyboardPhone = { FuzzPhone(ioCapability: .keyboardDisplay) }
        let silentPhone = { FuzzPhone(ioCapability: .noInputNoOutput, mitm: false) }
        let yesNoPhone = { FuzzPhone(ioCapability: .displayYesNo) }
        let displayPhone = { FuzzPhone(ioCapability: .displayOnly) }
        let legacyPhone = { FuzzPhone(ioCapability: .noInputNoOutput, secureConnections: false, mitm: false) }
        return [
            Scenario(name: "idle", configuration: passkeyDisplay, phone: keyboardPhone, secure: false, stop: { _ in true }),
            Scenario(name: "bonded-idle", configuration: passkeyDisplay, phone: keyboardPhone, bonded: true, secure: false, stop: { _ in true }),
            Scenario(name: "encrypting-with-bond", configuration: passkeyDisplay, phone: keyboardPhone, bonded: true, stop: phase(.encryptingWithBond)),
            Scenario(name: "waiting-to-retry", configuration: passkeyDisplay, phone: keyboardPhone, failedBefore: true, stop: phase(.waitingToRetry)),
            Scenario(name: "pairing-response", configuration: passkeyDisplay, phone: keyboardPhone, stop: phase(.awaitingPairingResponse)),
            Scenario(name: "sc-public-key", configuration: passkeyDisplay, phone: keyboardPhone, stop: phase(.awaitingPublicKey)),
            Scenario(name: "sc-passkey-confirm", configuration: passkeyDisplay, phone: keyboardPhone, stop: phase(.awaitingConfirm)),
            Scenario(name: "sc-passkey-random", configuration: passkeyDisplay, phone: keyboardPhone, stop: phase(.awaitingRandom)),
            Scenario(name: "sc-passkey-round-10", configuration: passkeyDisplay, phone: keyboardPhone,
                     stop: { $0.phase == .awaitingConfirm && $0.pairing?.passkeyRound == 10 }),
            Scenario(name: "sc-dhkey-check", configuration: passkeyDisplay, phone: keyboardPhone, stop: phase(.awaitingDHKeyCheck)),
            Scenario(name: "sc-encryption", configuration: passkeyDisplay, phone: keyboardPhone, stop: phase(.awaitingEncryption)),
            Scenario(name: "sc-keys", configuration: passkeyDisplay, phone: keyboardPhone, stop: phase(.awaitingKeys)),
            Scenario(name: "sc-last-key", configuration: passkeyDisplay, phone: keyboardPhone,
                     stop: { $0.phase == .awaitingKeys && $0.pairing?.expectedKeys.count == 1 }),
            Scenario(name: "sc-paired", configuration: passkeyDisplay, phone: keyboardPhone,
                     stop: { $0.phase == .idle && $0.linkSecurity != nil }),
            Scenario(name: "just-works-confirm", configuration: justWorks, phone: silentPhone, stop: phase(.awaitingConfirm)),
            Scenario(name: "just-works-random", configuration: justWorks, phone: silentPhone, stop: phase(.awaitingRandom)),
            Scenario(name: "numeric-comparison", configuration: yesNo, phone: yesNoPhone, stop: phase(.awaitingNumericConfirmation)),
            Scenario(name: "passkey-input", configuration: keyboard, phone: displayPhone, stop: phase(.awaitingPasskeyInput)),
            Scenario(name: "legacy-confirm", configuration: legacy, phone: legacyPhone, stop: phase(.awaitingConfirm)),
            Scenario(name: "legacy-random", configuration: legacy, phone: legacyPhone, stop: phase(.awaitingRandom)),
            Scenario(name: "legacy-encryption", configuration: legacy, phone: legacyPhone, stop: phase(.awaitingEncryption)),
            Scenario(name: "legacy-keys", configuration: legacy, phone: legacyPhone, stop: phase(.awaitingKeys)),
            Scenario(name: "timed-out", configuration: passkeyDisplay, phone: keyboardPhone, stop: phase(.timedOut)),
        ] + responderScenarios
    }()

    /// After the initiator's, so that the seeds' scenario bytes keep their meaning.
    static let responderScenarios: [Scenario] = {
        let iPhone = { FuzzInitiatorPhone() }
        let silentPhone = { FuzzInitiatorPhone(ioCapability: .noInputNoOutput, mitm: false) }
        let displayPhone = { FuzzInitiatorPhone(ioCapability: .displayOnly) }
        func responder(_ name: String, _ configuration: PairingConfiguration = passkeyDisplay,
                       _ phone: @escaping () -> FuzzInitiatorPhone = iPhone, bonded: Bool = false, secure: Bool = false,
                       stop: @escaping (SecurityManager) -> Bool) -> Scenario {
            Scenario(name: "responder-" + name, role: .responder, configuration: configuration, initiator: phone,
                     bonded: bonded, secure: secure, stop: stop)
        }
        return [
            responder("idle", stop: { _ in true }),
            responder("bonded-idle", bonded: true, stop: { _ in true }),
            responder("security-request", secure: true, stop: phase(.awaitingPairingRequest)),
            responder("bonded-security-request", bonded: true, secure: true, stop: phase(.awaitingPairingRequest)),
            responder("public-key", stop: phase(.awaitingPublicKey)),
            responder("passkey-confirm", stop: phase(.awaitingConfirm)),
            responder("passkey-random", stop: phase(.awaitingRandom)),
            responder("passkey-round-10", stop: { $0.phase == .awaitingConfirm && $0.pairing?.passkeyRound == 10 }),
            responder("dhkey-check", stop: phase(.awaitingDHKeyCheck)),
            responder("encryption", stop: phase(.awaitingEncryption)),
            responder("keys", stop: phase(.awaitingKeys)),
            responder("paired", stop: { $0.phase == .idle && $0.linkSecurity != nil }),
            responder("just-works-random", justWorks, silentPhone, stop: phase(.awaitingRandom)),
            responder("numeric-comparison", yesNo, stop: phase(.awaitingNumericConfirmation)),
            responder("passkey-input", keyboard, displayPhone, stop: phase(.awaitingPasskeyInput)),
            responder("timed-out", stop: phase(.timedOut)),
        ]
    }()

    static let bond = BondRecord(peerIdentityAddress: FuzzPhone.identityAddress, peerIRK: FuzzPhone.irk,
                                 longTermKey: LongTermKey(bytes: [UInt8](repeating: 0x3C, count: 16))!, keySize: 16,
                                 authenticated: true, secureConnections: true, localIRK: identity.irk)

    /// Something the head unit's Security Manager is told.
    enum Input {
        case pdu([UInt8])
        case encrypted(keySize: UInt8)
        case passkey(UInt32)
        case numeric(Bool)
        case keyRequest(ediv: UInt16, rand: UInt64)

        /// The same, as a script operation of `run`.
        var script: [UInt8] {
            var s = Script()
            switch self {
            case .pdu(let bytes): s.byte(0); s.chunk(bytes)
            case .encrypted(let size): s.byte(4 | 0x40); s.byte(size)
            case .passkey(let value): s.byte(7); s.byte(0); s.u32(value)
            case .numeric(let yes): s.byte(7); s.byte(1); s.byte(yes ? 1 : 0)
            case .keyRequest(let ediv, let rand): s.byte(7); s.byte(6); s.u16(ediv); s.u64(rand)
            }
            return s.bytes
        }
    }

    /// A Security Manager and a phone exchanging valid PDUs.
    final class Exchange {
        let central: SecurityManager
        let phone: FuzzPhone
        let initiator: FuzzInitiatorPhone
        let now: Instant
        var pending: [Input] = []

        init(_ scenario: Scenario, now: Instant) {
            self.now = now
            phone = scenario.phone()
            initiator = scenario.initiator()
            // Counter-based nonces: deterministic, never all zero.
            final class Counter { var value: UInt8 = 0 }
            let counter = Counter()
            let random = RandomSource { count in
                counter.value &+= 1
                return (0..<count).map { UInt8(truncatingIfNeeded: $0) &+ counter.value }
            }
            let limiter = PairingAttemptLimiter()
            if scenario.failedBefore { limiter.recordFailure(FuzzPhone.phoneAddress, now: now) }
            central = SecurityManager(role: scenario.role, configuration: scenario.configuration, localAddress: FuzzPhone.centralAddress,
                                      peerAddress: FuzzPhone.phoneAddress, bond: scenario.bonded ? SMPTarget.bond : nil,
                                      limiter: limiter, random: random,
                                      makeKeyPair: { () throws(CryptoError) -> P256KeyPair in FuzzPhone.centralKeyPair })
            if scenario.secure {
                central.secure(now: now)
            } else if scenario.role == .responder {
                pending.append(.pdu(initiator.pairingRequest()))
            }
        }

        /// Runs the exchange until `stop` holds or nothing moves; what the
        /// phone said but the head unit has not heard stays in `pending`.
        func run(until stop: (SecurityManager) -> Bool, record: ((Input) -> Void)? = nil) {
            var steps = 0
            while !stop(central), steps < 1_000 {
                steps += 1
                if let output = central.pollOutput() {
                    if central.role == .responder {
                        answerAsInitiator(output)
                        continue
                    }
                    switch output {
                    case .send(let bytes): pending += phone.handle(bytes).map { .pdu($0) }
                    case .displayPasskey(let passkey): phone.passkey = passkey.value
                    case .requestPasskey: pending.append(.passkey(phone.passkey))
                    case .confirmNumericComparison: pending.append(.numeric(true))
                    case .startEncryption: pending += [.encrypted(keySize: 16)] + phone.distributedKeys().map { .pdu($0) }
                    default: break
                    }
                } else if initiator.readyToEncrypt {
                    // The phone starts encryption: the controller asks for the key.
                    initiator.readyToEncrypt = false
                    pending += [.keyRequest(ediv: 0, rand: 0), .encrypted(keySize: 16)] + initiator.encrypted().map { .pdu($0) }
                } else if !pending.isEmpty {
                    let input = pending.removeFirst()
                    record?(input)
                    deliver(input)
                } else {
                    return
                }
            }
        }

        /// The phone as initiator answers the responder's output.
        private func answerAsInitiator(_ output: SecurityManagerOutput) {
            switch output {
            case .send(let bytes): pending += initiator.handle(bytes).map { .pdu($0) }
            case .displayPasskey(let passkey):
                initiator.passkey = passkey.value
                pending += initiator.passkeyKnown().map { .pdu($0) }
            case .requestPasskey:
                pending.append(.passkey(initiator.passkey))
                pending += initiator.passkeyKnown().map { .pdu($0) }
            case .confirmNumericComparison: pending.append(.numeric(true))
            default: break
            }
        }

        func deliver(_ input: Input) {
            switch input {
            case .pdu(let bytes): central.receive(bytes, now: now)
            case .encrypted(let size): central.encryptionChanged(enabled: true, keySize: size, now: now)
            case .passkey(let value): central.enterPasskey(Passkey(value), now: now)
            case .numeric(let yes): central.confirmNumericComparison(yes, now: now)
            case .keyRequest(let ediv, let rand): SMPTarget.check(central.longTermKeyRequested(ediv: ediv, rand: rand, now: now), central)
            }
        }
    }

    static func start(_ scenario: Scenario) -> Exchange {
        var now = Instant(milliseconds: 10_000)
        if scenario.name.hasSuffix("timed-out") {
            let exchange = Exchange(scenario, now: now)
            // A responder's timer runs once the phone has started pairing.
            if scenario.role == .responder { exchange.run(until: phase(.awaitingPublicKey)) }
            now = now.adding(milliseconds: scenario.configuration.timeoutMilliseconds)
            exchange.central.handleTimeout(now: now)
            return exchange
        }
        let exchange = Exchange(scenario, now: now)
        exchange.run(until: scenario.stop)
        invariant(scenario.stop(exchange.central), "scenario \(scenario.name) stopped in \(exchange.central.phase)")
        return exchange
    }

    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let scenario = scenarios[Int(input.byte()) % scenarios.count]
        let exchange = start(scenario)
        let central = exchange.central
        let configuration = scenario.configuration
        _ = central.drainOutputs()
        var now = exchange.now
        let wasTimedOut = central.phase == .timedOut
        var operations = 0
        while !input.isAtEnd, operations < 64 {
            operations += 1
            let op = input.byte()
            switch op & 0x07 {
            case 0...3:
                central.receive(input.chunk(), now: now)
            case 4:
                central.encryptionChanged(enabled: op & 0x80 == 0, keySize: op & 0x40 != 0 ? input.byte() : nil, now: now)
            case 5:
                central.encryptionFailed(status: input.byte(), now: now)
            case 6:
                now = now.adding(milliseconds: Int64(input.u16()) * 10)
                if let deadline = central.nextDeadline, deadline <= now { central.handleTimeout(now: now) }
            default:
                switch input.byte() % 8 {
                case 0: central.enterPasskey(Passkey(input.u32() % 1_000_000), now: now)
                case 1: central.confirmNumericComparison(input.bool(), now: now)
                case 2: central.enterPasskey(nil, now: now)
                case 3: central.cancel(now: now)
                case 4: central.pair(now: now)
                case 6: check(central.longTermKeyRequested(ediv: input.u16(), rand: input.u64(), now: now), central)
                default: central.secure(now: now)
                }
            }
            for output in central.drainOutputs() {
                switch output {
                case .send(let bytes):
                    invariant((try? SMPPDU.decode(bytes)) != nil, "sent a malformed SMP PDU")
                    invariant(!wasTimedOut, "SMP PDU sent after the SMP timeout")
                case .startEncryption(let ltk, _, _):
                    invariant(!ltk.isAllZero, "encryption started with an all-zero key")
                case .paired(let outcome):
                    invariant(outcome.keySize >= configuration.minimumKeySize, "paired with a \(outcome.keySize)-octet key")
                    invariant(!configuration.requireMITM || outcome.mitm, "paired without MITM protection against the policy")
                    invariant(!configuration.requireSecureConnections || outcome.secureConnections, "legacy pairing against the policy")
                    if let bond = outcome.bond {
                        invariant(!bond.longTermKey.isAllZero && bond.keySize == outcome.keySize, "bond with a bad key")
                    }
                case .encrypted(let security):
                    invariant(security.keySize >= configuration.minimumKeySize, "link reported secure with a \(security.keySize)-octet key")
                default:
                    break
                }
            }
            if central.phase.isPairing {
                invariant(central.pairing != nil || central.phase == .awaitingPairingRequest,
                          "pairing in \(central.phase) without its state")
                invariant(central.nextDeadline != nil, "pairing in \(central.phase) without its SMP timer")
            }
            if wasTimedOut { invariant(central.phase == .timedOut, "left the timed-out state for \(central.phase)") }
        }
    }

    /// An answer to an LTK request: only a responder gives a key, never an all-zero one.
    static func check(_ answer: LongTermKeyAnswer, _ manager: SecurityManager) {
        guard case .replyLongTermKey(let key) = answer else { return }
        invariant(manager.role == .responder, "a central answered an LTK request with a key")
        invariant(!key.isAllZero, "an all-zero LTK handed to the controller")
    }

    // MARK: seeds

    static func seeds() -> [(String, [UInt8])] {
        var out: [(String, [UInt8])] = []
        let offCurve = SMPPDU.pairingPublicKey(P256PublicKey(wireBytes: [UInt8](repeating: 0x01, count: 64))!).encoded()
        // x = 0, y = 0: not on the curve either, and the classic invalid point.
        let zeroPoint = SMPPDU.pairingPublicKey(P256PublicKey(wireBytes: [UInt8](repeating: 0, count: 64))!).encoded()
        // Coordinates >= p.
        let overField = SMPPDU.pairingPublicKey(P256PublicKey(wireBytes: [UInt8](repeating: 0xFF, count: 64))!).encoded()
        let debugKey = SMPPDU.pairingPublicKey(P256PublicKey.debugKey).encoded()
        let reflected = SMPPDU.pairingPublicKey(FuzzPhone.centralKeyPair.publicKey).encoded()
        let outOfOrder: [(String, [UInt8])] = [
            ("dhkey-check", SMPPDU.pairingDHKeyCheck([UInt8](repeating: 0x11, count: 16)).encoded()),
            ("random", SMPPDU.pairingRandom([UInt8](repeating: 0x22, count: 16)).encoded()),
            ("confirm", SMPPDU.pairingConfirm([UInt8](repeating: 0x33, count: 16)).encoded()),
            ("pairing-response", SMPPDU.pairingResponse(PairingFeatures(ioCapability: .keyboardDisplay,
                authReq: AuthenticationRequirements(bonding: true, mitm: true, secureConnections: true),
                initiatorKeys: .identityKey, responderKeys: KeyDistribution.identityKey.union(.encryptionKey))).encoded()),
            ("identity", SMPPDU.identityInformation(FuzzPhone.irk).encoded()),
            ("pairing-request", [0x01, 0x03, 0x00, 0x0D, 0x10, 0x03, 0x03]),
            ("security-request", [0x0B, 0x0D]),
            ("pairing-failed", [0x05, 0x08]),
            ("keypress", [0x0E, 0x01]),
            ("truncated", [0x0C, 0x01, 0x02]),
            ("unknown-code", [0x3F, 0x00]),
        ]
        for (index, scenario) in scenarios.enumerated() {
            let selector = UInt8(index)
            // The valid rest of the pairing from this state on.
            let exchange = start(scenario)
            var rest = Script([selector])
            exchange.run(until: { _ in false },
                         record: { rest.raw($0.script) })
            out.append((scenario.name + "-valid-rest", rest.bytes))
            for (name, pdu) in outOfOrder {
                var s = Script([selector])
                s.byte(0); s.chunk(pdu)
                out.append((scenario.name + "-" + name, s.bytes))
            }
            if scenario.name.hasPrefix("sc-") || scenario.name == "pairing-response" || scenario.role == .responder {
                for (name, pdu) in [("off-curve-key", offCurve), ("zero-point-key", zeroPoint), ("over-field-key", overField),
                                    ("debug-key", debugKey), ("reflected-key", reflected)] {
                    var s = Script([selector])
                    s.byte(0); s.chunk(pdu)
                    out.append((scenario.name + "-" + name, s.bytes))
                }
            }
        }
        // Events and answers outside their time.
        var events = Script([4])
        events.byte(4 | 0x40); events.byte(7)   // encryption with a 7-octet key
        events.byte(5); events.byte(0x06)       // PIN or Key Missing
        events.byte(6); events.u16(3_100)       // past the SMP timeout
        events.byte(7); events.byte(0); events.u32(999_999)
        events.byte(7); events.byte(1); events.byte(0)
        events.byte(7); events.byte(3)
        events.byte(7); events.byte(4)
        out.append(("events-out-of-order", events.bytes))
        // Key requests on a bonded responder: the bond's, then EDIV/Rand set.
        let bondedResponder = UInt8(scenarios.firstIndex { $0.name == "responder-bonded-idle" } ?? 0)
        var requests = Script([bondedResponder])
        requests.raw(Input.keyRequest(ediv: 0, rand: 0).script)
        requests.byte(4 | 0x40); requests.byte(16)
        requests.raw(Input.keyRequest(ediv: 0x1234, rand: 1).script)
        out.append(("responder-key-requests", requests.bytes))
        var stale = Script([2])
        stale.byte(5); stale.byte(0x06)
        out.append(("encrypting-with-bond-key-missing", stale.bytes))
        return out
    }
}
