import BluetoothCore
import HCI
import L2CAP
import SMP
import Screens

/// Pairing and encryption on each accepted link: the security manager's
/// outputs carried out, the controller's encryption events fed back.
extension HeadUnitCore {
    func startSecurity(_ handle: ConnectionHandle, server: String, now: Instant) {
        guard let link = links[handle] else { return }
        link.server = server
        var configuration = settings.pairing
        if let irk = localIRK {
            configuration.localIdentity = LocalIdentity(irk: irk, address: host.controller.address)
        }
        let sm = SecurityManager(configuration: configuration, localAddress: host.controller.address,
                                 peerAddress: link.peer, bond: bond(for: server), limiter: attempts)
        link.security = sm
        sm.secure(now: now)
    }

    func encryptionChanged(_ handle: ConnectionHandle, status: HCIStatus, enabled: Bool) {
        guard let sm = links[handle]?.security else { return }
        // Until the security manager has checked the key size, nothing that
        // needs encryption is served.
        links[handle]?.bearer.server.linkEncrypted = false
        guard status.isSuccess else {
            sm.encryptionFailed(status: status.code, now: clock.now)
            return
        }
        guard enabled else {
            sm.encryptionChanged(enabled: false, keySize: nil, now: clock.now)
            return
        }
        // The key size decides whether the link is usable (KNOB): ask the controller.
        host.readEncryptionKeySize(handle) { [unowned(unsafe) self] result in
            let keySize = try? result.get().keySize
            self.links[handle]?.security?.encryptionChanged(enabled: true, keySize: keySize, now: self.clock.now)
            self.pump()
        }
    }

    /// The phone refused ANCS for lack of authentication or encryption.
    func secureAgain(_ handle: ConnectionHandle, now: Instant) { links[handle]?.security?.peerRequiresSecurity(now: now) }

    /// The driver pressed the confirm key while both screens show the same number.
    public func confirmComparison(now: Instant) {
        clock.now = now
        guard let handle = comparisonPending else { return }
        comparisonPending = nil
        passkeyShown = nil
        links[handle]?.security?.confirmNumericComparison(true, now: now)
        pump()
    }

    func perform(_ output: SecurityManagerOutput, on link: PhoneLink, _ sm: SecurityManager, now: Instant) {
        let handle = link.handle
        let server = link.server
        switch output {
        case .send(let pdu):
            l2cap.send(pdu, on: handle, channel: .smp)
        case .displayPasskey(let passkey):
            phonePairsAfresh(link, now: now)
            Log.info("smp", "passkey for \(server ?? "the phone"): type it on the phone")
            emit(.passkey(passkey.text))
            passkeyShown = passkey.text
            say("passkey: \(passkey.text)")
        case .requestPasskey:
            // We never claim a keyboard; a phone that asks anyway is refused.
            sm.enterPasskey(nil, now: now)
        case .confirmNumericComparison(let value):
            emit(.numericComparison(value.text))
            say("confirm \(value.text) on both screens (the confirm key)")
            comparisonPending = handle
            passkeyShown = value.text
        case let .startEncryption(ltk, ediv, rand):
            host.send(.leEnableEncryption(handle, random: rand, ediv: ediv, ltk: ltk.bytes)) { [unowned(unsafe) self] result in
                if case .pending(let status) = result, !status.isSuccess {
                    self.links[handle]?.security?.encryptionFailed(status: status.code, now: self.clock.now)
                    self.pump()
                }
            }
        case .paired(let outcome):
            phonePairsAfresh(link, now: now)
            if link.role == .peripheral, let bond = outcome.bond {
                link.server = Accessory.bondKey(bond.peerIdentityAddress)
            }
            let server = link.server
            Log.info("smp", "paired with \(server ?? "the phone") by \(outcome.method.eventName), key size \(outcome.keySize)")
            emit(.paired(server: server, method: outcome.method, secureConnections: outcome.secureConnections, mitm: outcome.mitm))
            if let bond = outcome.bond, let server {
                saveBond(bond, for: server)
            }
            passkeyShown = nil
        case .encrypted(let linkSecurity):
            guard takeAsThePhone(link, now: now) else { break }
            Log.info("smp", "link to \(server ?? "the phone") encrypted (\(linkSecurity.bonded ? "bonded" : "not bonded"))")
            emit(.encrypted(server: server, bonded: linkSecurity.bonded))
            link.bearer.server.linkEncrypted = true
            passkeyShown = nil
            becameThePhone(link, now: now)
            startAppleServices(handle)
        case .failed(let failure):
            Log.warning("smp", "security with \(server ?? "the phone"): \(failure)")
            passkeyShown = nil
            emit(.error(what: "pairing", detail: failure.description))
            switch failure {
            case .timeout, .keySizeTooSmall:
                // No more SMP on this link (timeout), or a link too weak to
                // use: drop it; the pairing routine reconnects.
                host.disconnect(handle, reason: .authenticationFailure)
            case .tooManyAttempts:
                showHint(.hintPairAgain, what: "pairing")
            case .local, .remote, .encryption:
                // Try again; the attempt limiter spaces the retries out and
                // gives up after repeated failures.
                sm.secure(now: now)
            }
        case .staleBond:
            Log.warning("smp", "\(server ?? "the phone") no longer has our keys; deleting the bond and pairing again")
            if let server { deleteBond(server) }
            showHint(.hintPhoneForgot, what: "bond")
        }
    }

    /// A hint for the driver, told as an `error` event too.
    func showHint(_ key: ScreenTextKey, what: String) {
        hint = key
        emit(.error(what: what, detail: key.english))
    }
}
