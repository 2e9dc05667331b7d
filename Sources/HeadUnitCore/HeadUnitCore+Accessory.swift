import ANCS
import AMS
import BluetoothCore
import HCI
import L2CAP
import NavigationNotifier
import SMP
import ScreenValues

/// The peripheral role: the head unit advertises as an accessory that
/// solicits ANCS and AMS, an iPhone connects from Settings → Bluetooth and
/// pairs with the passkey on screen, and from then on the link is run as
/// the central one is (the same `PhoneLink`: Service Changed, ANCS, AMS,
/// the phone's clock). docs/PROTOCOL.md §7 has the iOS side.
extension HeadUnitCore {
    /// Phones paired from Settings are bonds made as peripheral.
    var accessoryBonds: [(server: String, bond: BondRecord)] {
        allBonds.filter { $0.bond.localRole == .responder }
    }

    /// The controller is ready for the first time: advertise, and open
    /// pairing mode if the configuration asks for it at every start.
    func startAccessory(now: Instant) {
        guard accessory != nil else { return }
        if settings.pairAtStart { openPairingWindow(now: now, why: "pair-at-start") }
        updateAdvertising(now: now)
    }

    /// Tells the controller what to advertise and to whom, when that changed.
    func updateAdvertising(now: Instant) {
        guard var accessory else { return }
        defer { self.accessory = accessory; reportAccessory() }
        if accessory.standingBy {
            if accessory.advertising {
                Log.info("accessory", "a NavigationNotifier phone is the phone; not advertising")
                host.stopAdvertising()
                accessory.advertising = false
            }
            return
        }
        let audience: AdvertisingAudience
        if accessory.pairingOpen || kept.localIRK == nil {
            audience = .anyone
        } else {
            let phones = accessoryBonds.map { BondedIdentity(address: $0.bond.peerIdentityAddress, irk: $0.bond.peerIRK?.bytes) }
            audience = .bonded(phones, localIRK: kept.localIRK?.bytes ?? [])
        }
        if accessory.audience != audience {
            accessory.audience = audience
            host.setAdvertisingAudience(audience)
        }
        if !accessory.advertising {
            Log.info("accessory", "advertising as " + accessory.name + " from " + accessory.identity.description)
            host.startAdvertising(advertisement(named: accessory.name))
            accessory.advertising = true
        }
    }

    /// Pairing mode for `settings.pairingWindowMilliseconds`: any iPhone may
    /// connect and pair (the console's `pair`, the idle screen's button).
    func openPairingWindow(now: Instant, why: String) {
        guard var accessory else {
            say("pairing from Settings is off (phones = navigationnotifier)")
            return
        }
        accessory.pairingUntil = now.adding(milliseconds: settings.pairingWindowMilliseconds)
        self.accessory = accessory
        // The driver asked: every pairing attempt count starts over, and
        // a phone given up on may try again.
        attempts.resetAll()
        let text = "pairing mode for \(settings.pairingWindowMilliseconds / 1000) s: on the iPhone, Settings → Bluetooth → " + accessory.name
        Log.info("accessory", text + " (" + why + ")")
        say(text)
        updateAdvertising(now: now)
    }

    func closePairingWindowIfDue(now: Instant) {
        guard var accessory, let until = accessory.pairingUntil, until <= now else { return }
        accessory.pairingUntil = nil
        self.accessory = accessory
        Log.info("accessory", accessory.pairingOpen ? "pairing window over; no phone paired from Settings yet, so still open"
                                                     : "pairing window over; only the bonded iPhone may connect")
        updateAdvertising(now: now)
    }

    /// The end of the pairing window, or of a connected phone's time to
    /// pair or encrypt (`nextDeadline` counts both).
    func accessoryTimeout(now: Instant) {
        closePairingWindowIfDue(now: now)
        for link in links.values { dropIfStillAStranger(link, now: now) }
    }

    /// A phone connected to us `PhoneLink.strangerGraceMilliseconds` ago.
    /// Secure: nothing to do. Pairing or encrypting, or pairing mode open:
    /// look again later (a pairing has its own 30 s timer). Otherwise it is
    /// a device that only holds the connection (perhaps replaying the
    /// owner's address, which the accept list lets in): it goes, and frees
    /// the controller's link (advertising went on meanwhile).
    private func dropIfStillAStranger(_ link: PhoneLink, now: Instant) {
        guard let due = link.secureBy, due <= now else { return }
        guard let sm = link.security, sm.linkSecurity == nil else {
            link.secureBy = nil
            return
        }
        if sm.peerIsSecuring || accessory?.pairingOpen != false {
            link.secureBy = now.adding(milliseconds: PhoneLink.strangerGraceMilliseconds)
            return
        }
        link.secureBy = nil
        let refusal = CoreError.accessoryRefused(.didNotSecure)
        Log.warning("accessory", refusal.detail + "; disconnecting " + link.peer.description + " so that the bonded phone can connect")
        report(refusal)
        host.disconnect(link.handle, reason: .authenticationFailure)
    }

    /// The bonds changed: every link's security manager, the resolver and
    /// the controller's lists follow (a link never answers with a bond
    /// that was deleted or replaced).
    func accessoryBondsChanged() {
        for link in links.values {
            guard let server = link.server, let sm = link.security else { continue }
            sm.storedBondChanged(bond(for: server))
        }
        guard accessory != nil else { return }
        accessory?.bonded.setBonds(accessoryBonds.map { AddressResolver.Entry(peer: $0.server, bond: $0.bond) })
        if started { updateAdvertising(now: clock.now) }
    }

    /// A phone connected to us. A stranger outside pairing mode is sent
    /// away at once (the controller's accept list does it where it can
    /// resolve private addresses; this is for the controllers that cannot).
    func accessoryLinkUp(_ phone: PhoneLink, _ link: Link, now: Instant) {
        let owner = accessory?.bonded.owner(of: link.peer)
        let refusal: CoreError.AccessoryRefusal?
        if accessory == nil {
            refusal = .notAdvertising
        } else if owner == nil && accessory?.pairingOpen == false {
            refusal = .strangerOutsidePairingMode
        } else if thePhone != nil {
            refusal = .secondPhone
        } else {
            refusal = nil
        }
        guard let accessory, refusal == nil else {
            let error = CoreError.accessoryRefused(refusal ?? .notAdvertising)
            Log.info("accessory", error.detail + "; disconnecting " + link.peer.description)
            report(error)
            host.disconnect(link.handle, reason: .authenticationFailure)
            return
        }
        Log.info("accessory", (owner ?? "a new phone") + " connected")
        let held: BondRecord? = owner.flatMap { self.bond(for: $0) }
        phone.server = owner
        phone.secureBy = now.adding(milliseconds: PhoneLink.strangerGraceMilliseconds)
        // SMP's confirm values take the addresses on air: ours as advertised,
        // the phone's private one when the controller resolved it.
        phone.security = securityManager(.responder, identity: accessory.identity.address, localAddress: link.localAddress,
                                         peerAddress: link.peerResolvablePrivateAddress ?? link.peer, bond: held)
        // iOS pairs or encrypts by itself soon after connecting; one that
        // does nothing gets a Security Request.
        phone.securityRequestDue = now.adding(milliseconds: PhoneLink.securityRequestDelayMilliseconds)
    }

    /// The phone's controller starts encryption: the key is the bond's, or
    /// the one just agreed, or there is none.
    func longTermKeyRequested(_ handle: ConnectionHandle, random: UInt64, ediv: UInt16, now: Instant) {
        guard let link = links[handle], link.role == .peripheral, let sm = link.security else {
            host.refuseLongTermKeyRequest(handle)
            return
        }
        link.securityRequestDue = nil
        switch sm.longTermKeyRequested(ediv: ediv, rand: random, now: now) {
        case .replyLongTermKey(let ltk): host.replyToLongTermKeyRequest(handle, ltk: ltk.bytes)
        case .refuseLongTermKey: host.refuseLongTermKeyRequest(handle)
        }
    }

    /// Security is done on a link: a phone bonded and encrypted is the
    /// phone, and the other way of finding one pauses until it leaves.
    func becameThePhone(_ link: PhoneLink, now: Instant) {
        if link.role == .peripheral {
            // Advertising went on beside links that were not secure (a
            // stranger holding one must not keep the owner out); now the
            // phone is in: it pauses, and those links go.
            host.peripheralLinkSecured(link.handle)
            dropUnsecuredPeripheralLinks(besides: link)
            // 30-50 ms, no latency, 2 s supervision: within Apple's accessory
            // guidelines. Asked once secure, so pairing is not slowed; the
            // phone may say no, and the link works either way.
            l2cap.requestConnectionParameters(.default, on: link.handle, now: now)
            accessory?.pairingUntil = nil
            if settings.findsNavigationNotifierPhones { pairing.standBy(now: now) }
            if shown.hint == .hintPhoneForgot { shown.hint = nil }
        } else if accessory != nil {
            accessory?.standingBy = true
        }
        updateAdvertising(now: now)
    }

    /// Links made to us that are not secure once a phone is: strangers
    /// (they neither paired nor encrypted with a bond), and never the phone.
    private func dropUnsecuredPeripheralLinks(besides phone: PhoneLink) {
        for other in links.values where other !== phone && other.role == .peripheral && other.security?.linkSecurity == nil {
            other.secureBy = nil
            let refusal = CoreError.accessoryRefused(.notSecureWhenThePhoneEncrypted)
            Log.warning("accessory", refusal.detail + " (" + phone.peer.description + "); disconnecting " + other.peer.description)
            report(refusal)
            host.disconnect(other.handle, reason: .authenticationFailure)
        }
    }

    /// A link ended. When it was the phone, the other way looks again.
    func accessoryLinkDown(_ link: PhoneLink, now: Instant) {
        let wasThePhone = link.isThePhone
        if link.role == .peripheral {
            // The other way looks again only if it was looking when this phone came (rule 9).
            if wasThePhone && settings.findsNavigationNotifierPhones { pairing.resume(now: now) }
        } else if accessory?.standingBy == true && !links.values.contains(where: { $0 !== link && $0.role == .central }) {
            accessory?.standingBy = false
        }
        updateAdvertising(now: now)
    }

    /// The phone connected through Settings that is the phone, if any.
    var accessoryPhone: PhoneLink? {
        thePhone.flatMap { $0.role == .peripheral ? $0 : nil }
    }

    /// Emits the `accessory` event when where the head unit stands changed.
    func reportAccessory() {
        guard let accessory else { return }
        let state: AccessoryReport.State
        var phone: String?
        if let link = accessoryPhone {
            state = .connected
            phone = (bond(for: link.server ?? "")?.peerIdentityAddress ?? link.peer).text
        } else if accessory.standingBy {
            state = .standby
        } else {
            state = accessory.pairingOpen ? .pairing : .bonded
        }
        let report = AccessoryReport(state: state, name: accessory.name, phone: phone,
                                     pairingWindowMilliseconds: accessory.pairingUntil.map { _ in settings.pairingWindowMilliseconds })
        guard report != accessory.reported else { return }
        self.accessory?.reported = report
        emit(.accessory(report))
    }
}
