import BluetoothCore
import HCI
import HeadUnitCore
import ScriptedPeers
@testable import ScriptedPairing
@testable import SMP
import Testing

/// The bonded iPhone's address is public (iOS advertises it all day), so
/// anyone may connect and pair from it. None of that may cost the owner
/// the bond or open pairing mode: the bond changes only when a new
/// pairing with the same identity completes.
@Suite struct OwnerBondTests {
    static let ownerKey = "settings C4:5A:11:22:33:44"
    static let owner = SettingsPairingTests.bond(SettingsPairingTests.phoneIdentity, SettingsPairingTests.phoneIRK)

    static var ownerState: StoredState {
        var stored = accessoryState
        stored.bonds[ownerKey] = owner
        return stored
    }

    /// A head unit bonded with the owner's iPhone, and a stranger who
    /// replays the owner's private address: it cannot see the screen.
    func strangerRig() throws -> (CoreRig, TestInitiatorPhone) {
        let (rig, stranger) = try settingsRig(stored: Self.ownerState)
        rig.onPasskey = { _ in }
        return (rig, stranger)
    }

    func accessoryStates(_ rig: CoreRig) -> [AccessoryReport.State] {
        rig.events.compactMap { if case .accessory(let r) = $0 { return r.state } else { return nil } }
    }

    /// Nothing about the owner changed: no bond deleted or written, no
    /// pairing mode, advertising only for the bonded phone.
    func expectOwnerUntouched(_ rig: CoreRig, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(!rig.writes.contains { if case .deleteBond = $0 { return true } else { return false } },
                sourceLocation: sourceLocation)
        #expect(rig.savedBond == nil, sourceLocation: sourceLocation)
        #expect(!accessoryStates(rig).contains(.pairing), sourceLocation: sourceLocation)
        #expect(rig.core.host.advertiser.audience != .anyone, sourceLocation: sourceLocation)
        #expect(rig.core.hint == nil, sourceLocation: sourceLocation)
    }

    /// The owner's iPhone comes back and encrypts with its keys.
    func expectOwnerGetsIn(_ rig: CoreRig, sourceLocation: SourceLocation = #_sourceLocation) {
        rig.smp = nil
        rig.peripheralEncryption = { ltk in (ltk == Self.owner.longTermKey.bytes ? 0 : 0x06, []) }
        rig.phoneConnectsToUs()
        rig.phoneStartsEncryption()
        #expect(rig.longTermKeyAnswers.last == Self.owner.longTermKey.bytes, sourceLocation: sourceLocation)
        #expect(rig.events.contains(.encrypted(server: Self.ownerKey, bonded: true)), sourceLocation: sourceLocation)
        #expect(accessoryStates(rig).last == .connected, sourceLocation: sourceLocation)
    }

    /// The head unit ended the stranger's link; the owner is unharmed.
    func expectStrangerDroppedAndOwnerUnharmed(_ rig: CoreRig, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(rig.commands.contains(.disconnect), "the stranger's link was kept", sourceLocation: sourceLocation)
        rig.dropLink(reason: 0x16)
        expectOwnerUntouched(rig, sourceLocation: sourceLocation)
        expectOwnerGetsIn(rig, sourceLocation: sourceLocation)
    }

    @Test func aStrangerWhoAbandonsPairingChangesNothing() throws {
        let (rig, stranger) = try strangerRig()
        rig.phoneConnectsToUs()
        for pdu in stranger.startPairing() { rig.phoneSendsSMP(pdu) }
        #expect(rig.eventNames.contains("passkey"))
        rig.dropLink()
        expectOwnerUntouched(rig)
        expectOwnerGetsIn(rig)
    }

    @Test func aStrangerWithAWrongPasskeyChangesNothingAndIsDropped() throws {
        let (rig, stranger) = try strangerRig()
        stranger.typedPasskey = Passkey(111_111)
        rig.phoneConnectsToUs()
        for pdu in stranger.startPairing() { rig.phoneSendsSMP(pdu) }
        #expect(rig.errors.contains("pairing: aborted: confirm value failed"))
        #expect(rig.smpSent.contains([0x05, 0x04]), "Pairing Failed: Confirm Value Failed")
        #expect(!rig.commands.contains(.disconnect))
        rig.advance(milliseconds: 1_000)
        #expect(rig.sent(0x0B) == 0, "no Security Request asks the stranger to try again")
        expectStrangerDroppedAndOwnerUnharmed(rig)
    }

    @Test func aStrangerWhoseAttemptTimesOutChangesNothing() throws {
        let (rig, stranger) = try strangerRig()
        rig.phoneConnectsToUs()
        for pdu in stranger.startPairing() { rig.phoneSendsSMP(pdu) }
        rig.advance(milliseconds: 31_000)
        expectStrangerDroppedAndOwnerUnharmed(rig)
    }

    /// One who knows the passkey (it is on the screen) but pairs under
    /// another identity is not the owner: no bond, no phone, dropped.
    @Test func aPairingUnderAnotherIdentityIsRefused() throws {
        let (rig, stranger) = try settingsRig(stored: Self.ownerState)
        stranger.identityAddress = BluetoothAddress("C4:99:88:77:66:55", kind: .random)!
        try? pairFromSettings(rig, stranger)
        #expect(!rig.events.contains { if case .encrypted = $0 { return true } else { return false } })
        expectStrangerDroppedAndOwnerUnharmed(rig)
    }

    /// A device that connects from the owner's address and does nothing
    /// holds the only slot for a few seconds at most.
    @Test func aStrangerThatDoesNotSecureTheLinkIsDropped() throws {
        let (rig, _) = try strangerRig()
        rig.smp = nil
        rig.phoneConnectsToUs()
        rig.advance(milliseconds: PhoneLink.strangerGraceMilliseconds - 500)
        #expect(!rig.commands.contains(.disconnect))
        rig.advance(milliseconds: 1_000)
        #expect(rig.errors.contains { $0.hasPrefix("accessory: ") && $0.contains("did not pair or encrypt") })
        expectStrangerDroppedAndOwnerUnharmed(rig)
    }

    /// A device that connects and sits there, from an address the owner's
    /// iPhone used before (the controller resolves it to the bond, so the
    /// accept list lets it in), does not keep the owner out: advertising
    /// goes on while no link is secure, the owner's iPhone connects beside
    /// it and encrypts with its bond, and then the stranger is dropped at
    /// once (one phone at a time) and advertising pauses.
    @Test func theOwnerGetsInWhileAStrangerIsConnected() throws {
        let (rig, _) = try strangerRig()
        rig.smp = nil
        let strangerHandle: UInt16 = 0x0041
        let replayed = try settingsPhoneIRK.resolvablePrivateAddress(prand: [0x44, 0x55, 0x66])
        rig.deliver([ScriptedController.connectionComplete(handle: strangerHandle, peer: replayed, asPeripheral: true)])
        rig.advance(milliseconds: 500)
        #expect(!rig.commands.contains(.disconnect))
        guard case .advertising = rig.core.host.advertiser.state else {
            Issue.record("advertising paused for a link that is not secure: \(rig.core.host.advertiser.state)")
            return
        }
        expectOwnerGetsIn(rig)
        #expect(rig.commands.filter { $0 == .disconnect }.count == 1, "the stranger's link, and only it, is ended")
        #expect(rig.isLinkUp, "the owner's link stays")
        #expect(rig.errors.contains { $0.hasPrefix("accessory: ") && $0.contains("not the phone") })
        #expect(rig.core.host.advertiser.state == .pausedByConnection)
        rig.deliver([ScriptedController.disconnectionComplete(handle: strangerHandle, reason: 0x16)])
        #expect(rig.core.host.advertiser.state == .pausedByConnection, "the phone is still connected")
        expectOwnerUntouched(rig)
    }

    /// The driver forgets the phone while its link is up: the link's
    /// security manager no longer answers with the deleted bond.
    @Test func aBondForgottenWhileConnectedIsNoLongerAnsweredWith() throws {
        let (rig, _) = try strangerRig()
        rig.smp = nil
        rig.phoneConnectsToUs()
        rig.console("forget \(Self.ownerKey)")
        #expect(rig.writes.contains(.deleteBond(server: Self.ownerKey)))
        rig.phoneStartsEncryption()
        #expect(rig.longTermKeyAnswers == [nil])
        #expect(!rig.events.contains { if case .encrypted = $0 { return true } else { return false } })
    }

    /// In pairing mode the same wait does not apply: the driver opened it.
    @Test func inPairingModeAQuietPhoneIsNotDropped() throws {
        let (rig, _) = try settingsRig()
        rig.smp = nil
        rig.phoneConnectsToUs()
        rig.advance(milliseconds: PhoneLink.strangerGraceMilliseconds + 1_000)
        #expect(!rig.commands.contains(.disconnect))
    }

    /// Bonding=0 never makes "the phone".
    @Test func aPairingWithoutBondingIsRefused() throws {
        let (rig, phone) = try settingsRig()
        phone.authReq = AuthenticationRequirements(bonding: false, mitm: true, secureConnections: true)
        #expect(throws: PairingDidNotFinish.self) { try pairFromSettings(rig, phone) }
        #expect(rig.smpSent.contains([0x05, 0x03]), "Pairing Failed: Authentication Requirements")
        #expect(!rig.events.contains { if case .encrypted = $0 { return true } else { return false } })
        #expect(!accessoryStates(rig).contains(.connected))
        #expect(rig.savedBond == nil)
    }

    /// The console says how many attempts there were and who waits.
    @Test func theStatusShowsTheAttemptLimit() throws {
        let (rig, stranger) = try strangerRig()
        stranger.typedPasskey = Passkey(111_111)
        rig.phoneConnectsToUs()
        for pdu in stranger.startPairing() { rig.phoneSendsSMP(pdu) }
        let shell = HeadUnitCore.ShellStatus(transport: "tcp", stateFiles: "ok", glyphs: nil, watchdog: "none", systemClock: "09:41")
        let status = rig.core.statusText(now: rig.now, shell: shell)
        #expect(status.contains("pairing attempts: 1 in the last 60 s (at most 6), 1 address waiting, 0 given up"))
    }
}
