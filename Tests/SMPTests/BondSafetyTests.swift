import Testing
import BluetoothCore
@testable import SMP
@testable import ScriptedPairing

/// A bond changes only when a new pairing completes with the same
/// identity; a pairing without bonding never makes a phone; attempts are
/// limited per address and in total.
@Suite struct BondSafetyTests {
    /// The bond the head unit holds for the iPhone behind `phoneRPA`.
    static func heldBond(identity: BluetoothAddress = BluetoothAddress("C4:5A:11:22:33:44", kind: .random)!) -> BondRecord {
        BondRecord(peerIdentityAddress: identity, peerIRK: nil, longTermKey: LongTermKey(bytes: [UInt8](repeating: 0x44, count: 16))!,
                   keySize: 16, authenticated: true, secureConnections: true, localIRK: peripheralIdentity.irk, localRole: .responder)
    }

    /// Bonding=0 in the phone's AuthReq: refused with Authentication
    /// Requirements before any passkey is shown.
    @Test func aPairingRequestWithoutBondingIsRefused() throws {
        let phone = try makeIPhone()
        phone.authReq = AuthenticationRequirements(bonding: false, mitm: true, secureConnections: true)
        var h = ResponderHarness(peripheral: makePeripheral(), phone: phone)
        try h.pairFromSettings()
        #expect(phone.failedWith == .authenticationRequirements)
        #expect(h.failures == [.local(.authenticationRequirements)])
        #expect(h.shownPasskeys.isEmpty)
        #expect(h.outcome == nil)
        #expect(h.peripheral.linkSecurity == nil)
    }

    /// As central: a phone that answers without bonding is refused too.
    @Test func aPairingResponseWithoutBondingIsRefused() throws {
        let central = makeCentral()
        let phone = try makePhone()
        phone.authReq = AuthenticationRequirements(bonding: false, mitm: true, secureConnections: true)
        var h = PairingHarness(central: central, phone: phone)
        central.secure(now: h.now)
        try h.run()
        #expect(phone.failedWith == .authenticationRequirements)
        #expect(h.failures == [.local(.authenticationRequirements)])
        #expect(h.outcome == nil)
        #expect(central.linkSecurity == nil)
    }

    /// Someone replays the bonded iPhone's address and pairs with the
    /// passkey from the screen, but under another identity: the held bond
    /// stays, the new one is not handed out, and the link is refused.
    @Test func aNewPairingUnderAnotherIdentityDoesNotReplaceTheBond() throws {
        let held = Self.heldBond()
        let phone = try makeIPhone()
        phone.identityAddress = BluetoothAddress("C4:99:88:77:66:55", kind: .random)!
        var h = ResponderHarness(peripheral: makePeripheral(bond: held), phone: phone)
        try h.pairFromSettings()
        #expect(h.failures == [.otherIdentity(phone.identityAddress)])
        #expect(h.outcome == nil)
        #expect(h.peripheral.bond == held)
        #expect(h.peripheral.linkSecurity == nil)
    }

    /// The same identity pairing again (Forget This Device on the iPhone):
    /// the new bond replaces the held one.
    @Test func aNewPairingUnderTheSameIdentityReplacesTheBond() throws {
        let phone = try makeIPhone()
        let held = Self.heldBond(identity: phone.identityAddress)
        var h = ResponderHarness(peripheral: makePeripheral(bond: held), phone: phone)
        try h.pairFromSettings()
        #expect(h.failures.isEmpty)
        let bond = try #require(h.outcome?.bond)
        #expect(bond.peerIdentityAddress == held.peerIdentityAddress && bond.longTermKey != held.longTermKey)
        #expect(h.peripheral.bond == bond)
    }

    /// A failed attempt leaves the held bond answering the next LTK request.
    @Test func aFailedAttemptKeepsAnsweringWithTheHeldBond() throws {
        let held = Self.heldBond()
        let phone = try makeIPhone()
        phone.typedPasskey = Passkey(123_456)  // not what the head unit shows
        var h = ResponderHarness(peripheral: makePeripheral(bond: held), phone: phone)
        try h.pairFromSettings()
        #expect(h.failures == [.local(.confirmValueFailed)])
        #expect(h.peripheral.longTermKeyRequested(ediv: 0, rand: 0, now: h.now) == .replyLongTermKey(held.longTermKey))
    }

    /// The bond was deleted by the owner while the link was up: the link's
    /// manager no longer answers with it.
    @Test func aBondDeletedElsewhereIsNoLongerUsed() {
        let peripheral = makePeripheral(bond: Self.heldBond())
        peripheral.storedBondChanged(nil)
        #expect(peripheral.longTermKeyRequested(ediv: 0, rand: 0, now: .zero) == .refuseLongTermKey)
    }

    /// Many addresses (a flood, or one device rotating addresses): after
    /// `maximumAttemptsPerWindow` attempts in a minute the next is refused
    /// with Repeated Attempts, whatever its address; a minute later it is taken.
    @Test func attemptsAreLimitedInTotal() throws {
        let limiter = PairingAttemptLimiter()
        var now = Instant(milliseconds: 1_000)
        for n in 0..<limiter.maximumAttemptsPerWindow {
            let address = BluetoothAddress(value: 0x4A00_0000_0000 + UInt64(n), kind: .random)
            let peripheral = makePeripheral(peer: address, limiter: limiter)
            peripheral.receive(try makeIPhone().startPairing()[0], now: now)
            #expect(sentPDUs(peripheral.drainOutputs()).first.map { if case .pairingResponse = $0 { true } else { false } } == true)
            now = now.adding(milliseconds: 1_000)
        }
        let last = makePeripheral(peer: BluetoothAddress(value: 0x4A00_0000_00FF, kind: .random), limiter: limiter)
        last.receive(try makeIPhone().startPairing()[0], now: now)
        #expect(sentPDUs(last.drainOutputs()) == [.pairingFailed(.repeatedAttempts)])
        #expect(limiter.summary(now: now).recentAttempts == limiter.maximumAttemptsPerWindow)

        now = now.adding(milliseconds: limiter.windowMilliseconds)
        let later = makePeripheral(peer: BluetoothAddress(value: 0x4A00_0000_00FE, kind: .random), limiter: limiter)
        later.receive(try makeIPhone().startPairing()[0], now: now)
        #expect(sentPDUs(later.drainOutputs()).first.map { if case .pairingResponse = $0 { true } else { false } } == true)
    }

    /// The summary the console shows: attempts in the window, addresses
    /// waiting out a back-off, addresses given up on.
    @Test func theSummarySaysWhoWaits() {
        let limiter = PairingAttemptLimiter()
        let now = Instant(milliseconds: 1_000)
        limiter.recordFailure(phoneRPA, now: now)
        var summary = limiter.summary(now: now)
        #expect(summary.waiting == 1 && summary.givenUp == 0)
        #expect(summary.text == "pairing attempts: 0 in the last 60 s (at most 6), 1 address waiting, 0 given up")
        summary = limiter.summary(now: now.adding(milliseconds: 2_000))
        #expect(summary.waiting == 0)
    }

    /// The phone says it has no keys (PIN or Key Missing): the manager
    /// stops using the bond on this link and pairs again, but the bond
    /// itself is the owner's to keep until a new pairing completes.
    @Test func pinOrKeyMissingReportsTheBondWithoutDeletingIt() throws {
        let central = makeCentral(bond: BondedEncryptionTests().storedBond())
        central.secure(now: .zero)
        _ = central.drainOutputs()
        central.encryptionFailed(status: 0x06, now: .zero)
        let outputs = central.drainOutputs()
        #expect(outputs.contains { if case .peerLostKeys = $0 { return true } else { return false } })
        #expect(sentPDUs(outputs).first.map { if case .pairingRequest = $0 { true } else { false } } == true)
    }
}
