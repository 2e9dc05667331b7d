import BluetoothCore
import HCI
import GATT
import L2CAP
import SMP
import ScreenValues

/// Pairing and encryption on each accepted link: the security manager's
/// outputs carried out, the controller's encryption events fed back.
extension HeadUnitCore {
    func startSecurity(_ handle: ConnectionHandle, server: String, now: Instant) {
        guard let link = links[handle] else { return }
        link.server = server
        let sm = securityManager(.initiator, identity: host.controller.address, localAddress: host.controller.address,
                                 peerAddress: link.peer, bond: bond(for: server))
        link.security = sm
        sm.secure(now: now)
    }

    /// The one place a link's security manager is made, in either role:
    /// the configured policy, our identity (the IRK with `identity`, the
    /// address the phone learns us by) when there is an IRK, the addresses
    /// on air that enter SMP's confirm values, the bond the link resolved
    /// to, the shared attempt limiter and the core's random source.
    func securityManager(_ role: SecurityRole, identity: BluetoothAddress, localAddress: BluetoothAddress,
                         peerAddress: BluetoothAddress, bond: BondRecord?) -> SecurityManager {
        var configuration = settings.pairing
        if let irk = kept.localIRK {
            configuration.localIdentity = LocalIdentity(irk: irk, address: identity)
        }
        return SecurityManager(role: role, configuration: configuration, localAddress: localAddress,
                               peerAddress: peerAddress, bond: bond, limiter: attempts, random: random)
    }

    func encryptionChanged(_ handle: ConnectionHandle, status: HCIStatus, enabled: Bool) {
        guard let sm = links[handle]?.security else { return }
        // Until the security manager has checked the key size, nothing that
        // needs encryption is served.
        links[handle]?.bearer.server.linkEncrypted = false
        l2cap.setLinkEncrypted(handle, false)
        guard status.isSuccess else {
            sm.encryptionFailed(status: status.code, now: clock.now)
            return
        }
        guard enabled else {
            sm.encryptionChanged(enabled: false, keySize: nil, now: clock.now)
            return
        }
        // The key size decides whether the link is usable (KNOB): ask the
        // controller where it can tell; else it is the size SMP negotiated
        // or the bond holds (on LE, SMP shortens the key itself), and the
        // security manager refuses a short one all the same.
        guard host.controller.supports(.readEncryptionKeySize) else {
            let keySize = sm.keySizeOfEncryption
            Log.info("smp", "the controller cannot report the key size; \(keySize.map { "\($0) octets" } ?? "unknown") as SMP knows it")
            sm.encryptionChanged(enabled: true, keySize: keySize, now: clock.now)
            return
        }
        host.readEncryptionKeySize(handle)
    }

    /// The controller's answer to `readEncryptionKeySize`.
    func encryptionKeySizeRead(_ handle: ConnectionHandle, _ result: Result<ReadEncryptionKeySizeResult, CommandFailure>, now: Instant) {
        let keySize = try? result.get().keySize
        links[handle]?.security?.encryptionChanged(enabled: true, keySize: keySize, now: now)
    }

    /// LE Enable Encryption refused (Command Status): no Encryption Change follows.
    func commandCompleted(_ tag: CommandTag, _ result: CommandResult, now: Instant) {
        guard case .enableEncryption(let handle) = tag, case .pending(let status) = result, !status.isSuccess else { return }
        links[handle]?.security?.encryptionFailed(status: status.code, now: now)
    }

    /// The phone refused ANCS for lack of authentication or encryption.
    func secureAgain(_ handle: ConnectionHandle, now: Instant) { links[handle]?.security?.peerRequiresSecurity(now: now) }

    /// The driver pressed the confirm key while both screens show the same number.
    public func confirmComparison(now: Instant) {
        clock.now = now
        guard let link = links.values.last(where: { $0.comparisonPending }) else { return }
        link.comparisonPending = false
        link.passkeyShown = nil
        link.security?.confirmNumericComparison(true, now: now)
        pump()
    }

    func perform(_ output: SecurityManagerOutput, on link: PhoneLink, _ sm: SecurityManager, now: Instant) {
        let handle = link.handle
        let server = link.server
        switch output {
        case .send(let pdu):
            l2cap.send(pdu, on: handle, channel: .smp)
        case .displayPasskey(let passkey):
            guard takesThePasskeyScreen(link, sm, now: now) else { return }
            // Showing a passkey changes nothing stored: the bond this link
            // resolved to (if any) stays, and is used, until a new pairing
            // completes (`.paired`).
            Log.info("smp", "passkey for \(server ?? "the phone"): type it on the phone")
            emit(.passkey(passkey.text))
            link.passkeyShown = passkey.text
            say("passkey: \(passkey.text)")
        case .requestPasskey:
            // We never claim a keyboard; a phone that asks anyway is refused.
            sm.enterPasskey(nil, now: now)
        case .confirmNumericComparison(let value):
            guard takesThePasskeyScreen(link, sm, now: now) else { return }
            emit(.numericComparison(value.text))
            say("confirm \(value.text) on both screens (the confirm key)")
            link.comparisonPending = true
            link.passkeyShown = value.text
        case let .startEncryption(ltk, ediv, rand):
            host.send(.leEnableEncryption(handle, random: rand, ediv: ediv, ltk: ltk.bytes), tag: .enableEncryption(handle))
        case .paired(let outcome):
            if link.role == .peripheral, let bond = outcome.bond {
                // The security manager checked that a link which resolved
                // to a bond paired under that bond's identity: same key.
                link.server = Accessory.bondKey(bond.peerIdentityAddress)
            }
            let server = link.server
            Log.info("smp", "paired with \(server ?? "the phone") by \(outcome.method.eventName), key size \(outcome.keySize)")
            emit(.paired(server: server, method: outcome.method, secureConnections: outcome.secureConnections, mitm: outcome.mitm))
            if let bond = outcome.bond, let server {
                // The one place a bond is replaced: one save over the old
                // record (the phone forgot us, or asked for stronger keys),
                // never a delete first.
                if self.bond(for: server) != nil {
                    Log.info("smp", "\(server) paired again; its bond is replaced")
                }
                saveBond(bond, for: server)
            }
            if shown.hint == .hintPhoneForgot { shown.hint = nil }
            passkeyEnded(on: link)
        case .encrypted(let linkSecurity):
            guard takeAsThePhone(link, now: now) else { break }
            Log.info("smp", "link to \(server ?? "the phone") encrypted (\(linkSecurity.bonded ? "bonded" : "not bonded"))")
            emit(.encrypted(server: server, bonded: linkSecurity.bonded))
            link.bearer.server.linkEncrypted = true
            l2cap.setLinkEncrypted(link.handle, true)
            if linkSecurity.bonded { restoreClientState(of: link) }
            passkeyEnded(on: link)
            becameThePhone(link, now: now)
            startAppleServices(handle)
        case .failed(let failure):
            Log.warning("smp", "security with \(server ?? "the phone"): \(failure)")
            passkeyEnded(on: link)
            report(.pairingFailed(failure))
            switch failure {
            case .timeout, .keySizeTooSmall, .otherIdentity:
                // No more SMP on this link (timeout), a link too weak to
                // use, or one that paired as someone else than the bonded
                // phone it resolved to: drop it; the owner's phone (or the
                // pairing routine) reconnects.
                host.disconnect(handle, reason: .authenticationFailure)
            case _ where link.role == .peripheral && accessory?.pairingOpen == false:
                // Outside pairing mode a failed attempt gets no second try on
                // the same link: the slot is freed for the bonded phone, and
                // a driver who mistyped the passkey taps again (the limiter
                // spaces those attempts out). Dropped a moment later, so
                // that Pairing Failed reaches the phone before the link ends.
                Log.info("accessory", "pairing with \(link.peer) failed outside pairing mode; disconnecting")
                link.secureBy = now.adding(milliseconds: PhoneLink.failedAttemptLingerMilliseconds)
            case .tooManyAttempts:
                report(.pairingGaveUp)
            case .local, .remote, .encryption:
                // Try again; the attempt limiter spaces the retries out and
                // gives up after repeated failures.
                sm.secure(now: now)
            }
        case .peerLostKeys:
            // PIN or Key Missing is only a claim: anyone answering at the
            // phone's address can make it. Deleting the bond here would let
            // a stranger lock the owner out, so it stays (docs/ROBUSTNESS.md,
            // "Bonds change only on success"); the new pairing that starts
            // now replaces it when it completes under the same phone. Bonds
            // are deleted only by the driver (`unpair`, `forget`) or by the
            // phone over its encrypted link (PAIRED CLIENT NAME `UNPAIRED`).
            Log.warning("smp", "\(server ?? "the phone") says it has no keys for our bond; pairing again (the bond stays until that completes)")
            report(.phoneForgot)
        }
    }

    /// The link's pairing is over (paired, encrypted, failed): its passkey
    /// or comparison leaves the screen, and only its own.
    func passkeyEnded(on link: PhoneLink) {
        link.passkeyOnScreen = false
        link.passkeyShown = nil
        link.comparisonPending = false
    }

    /// One pairing at a time: the screen holds one passkey, and the driver
    /// types it into the phone in their hand. An iPhone that tapped the
    /// head unit (peripheral role) and reaches its passkey while another
    /// phone's is on screen (two iPhones tapping it in Settings at once
    /// while pairing mode is open) is refused with Pairing Failed; its user
    /// may tap again once the first is done. A phone with the app is paired
    /// by the head unit's own choice (central role): its pairing goes on,
    /// and the first link encrypted is the phone (`takeAsThePhone`).
    func takesThePasskeyScreen(_ link: PhoneLink, _ sm: SecurityManager, now: Instant) -> Bool {
        if link.role == .peripheral, links.values.contains(where: { $0 !== link && $0.passkeyOnScreen }) {
            Log.warning("smp", "\(link.server ?? "a phone") asked to pair while another phone's passkey is on screen: refused, one pairing at a time")
            sm.cancel(now: now)
            return false
        }
        link.passkeyOnScreen = true
        return true
    }
}
