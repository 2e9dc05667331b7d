import BluetoothCore
import HeadUnitCore
import ScriptedPeers
@testable import ScriptedPairing
@testable import SMP
import Testing

/// Security on a real link: a Security Request from the phone, bonds that
/// are too weak or stale, a link encrypted with too short a key.
@Suite struct SecurityTests {
    let securityRequestMITM = SMPPDU.securityRequest(AuthenticationRequirements(bonding: true, mitm: true, secureConnections: true)).encoded()

    /// Before the pairing routine accepted the phone there is no security
    /// manager on the link: the request is ignored and the routine goes on.
    @Test func aSecurityRequestBeforeThePhoneIsAcceptedIsIgnored() throws {
        let (rig, _) = try pairingRig()
        rig.phoneAnswersATT = false
        rig.start()
        #expect(rig.core.links.count == 1)
        rig.phoneSendsSMP(securityRequestMITM)
        #expect(rig.smpSent.isEmpty)
        #expect(rig.states.last == .connecting(server: nil))
        rig.releaseHeldATT()
        #expect(rig.sent(0x01) == 1)
        #expect(rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
    }

    /// On a link already encrypted with an authenticated bond the request changes nothing.
    @Test func aSecurityRequestOnASecureLinkDoesNotPairAgain() throws {
        let (rig, _) = try pairingRig()
        rig.start()
        let pairingRequests = rig.sent(0x01)
        #expect(pairingRequests == 1)
        rig.phoneSendsSMP(securityRequestMITM)
        #expect(rig.sent(0x01) == pairingRequests)
        #expect(rig.core.links.count == 1)
    }

    /// A Just Works bond is not enough for a phone that asks for MITM
    /// protection: the head unit pairs again, with a passkey.
    @Test func aSecurityRequestForMITMOnAJustWorksBondPairsAgain() throws {
        let (first, _) = try pairingRig()
        first.start()
        var bond = try #require(first.savedBond)
        bond.authenticated = false
        let (rig, smp) = try pairingRig(stored: bondedState(bond), phone: ScriptedPhone(pairedClientName: clientName))
        rig.encryption = { _ in (0, []) }
        rig.start()
        #expect(rig.smpSent.isEmpty)
        #expect(rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
        wire(rig, to: smp)
        rig.phoneSendsSMP(securityRequestMITM)
        #expect(rig.sent(0x01) == 1)
        #expect(rig.eventNames.contains("passkey"))
        #expect(rig.events.contains(.paired(server: "Anna-iPhone-7F3A", method: .passkeyEntry, secureConnections: true, mitm: true)))
    }

    /// The phone says it lost its keys (PIN or Key Missing): anyone at the
    /// phone's address can say that, so the bond stays; the driver is told
    /// and a new pairing starts. Only its completion replaces the bond.
    @Test func aPhoneThatSaysItLostItsKeysKeepsTheBondUntilANewPairingCompletes() throws {
        let (first, _) = try pairingRig()
        first.start()
        let bond = try #require(first.savedBond)
        let rig = CoreRig(stored: bondedState(bond), phone: ScriptedPhone(pairedClientName: clientName))
        rig.encryption = { _ in (0x06, []) }  // PIN or Key Missing
        rig.start()
        #expect(!rig.writes.contains(.deleteBond(server: "Anna-iPhone-7F3A")))
        #expect(rig.errors.contains("bond: Phone forgot this head unit: pair again"))
        #expect(rig.core.hint == .hintPhoneForgot)
        #expect(rig.sent(0x01) == 1, "a new pairing starts")
        rig.console("bonds")
        #expect(rig.takeConsoleLines().contains { $0.hasPrefix("bond Anna-iPhone-7F3A:") })
    }

    /// The phone really lost its keys: the new pairing completes and the
    /// bond is replaced in one save, never deleted first.
    @Test func aPhoneThatLostItsKeysPairsAgainAndTheBondIsReplaced() throws {
        let (first, _) = try pairingRig()
        first.start()
        let bond = try #require(first.savedBond)
        let (rig, smp) = try pairingRig(stored: bondedState(bond), phone: ScriptedPhone(pairedClientName: clientName))
        var stale = true
        let encrypt = rig.encryption
        rig.encryption = { ltk in
            if stale {
                stale = false
                return (0x06, [])
            }
            return encrypt(ltk)
        }
        rig.start()
        _ = smp
        #expect(!rig.writes.contains(.deleteBond(server: "Anna-iPhone-7F3A")))
        let renewed = try #require(rig.savedBond)
        #expect(renewed.longTermKey != bond.longTermKey)
        #expect(rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
        #expect(rig.core.hint == nil)
    }

    /// Re-encryption with the bond on a controller that reports a 7-byte
    /// key (KNOB): the link is refused and dropped.
    @Test func aShortKeyOnReEncryptionDropsTheLink() throws {
        let (first, _) = try pairingRig()
        first.start()
        let bond = try #require(first.savedBond)
        let rig = CoreRig(stored: bondedState(bond), phone: ScriptedPhone(pairedClientName: clientName))
        rig.encryptionKeySize = 7
        rig.start()
        #expect(rig.errors.contains { $0.hasPrefix("pairing:") })
        #expect(!rig.events.contains { if case .encrypted = $0 { return true } else { return false } })
        #expect(rig.commands.contains(.disconnect))
        #expect(rig.writes.isEmpty)
    }

    /// A new pairing whose link comes up with a 7-byte key: no bond is
    /// kept and the link is never used.
    @Test func aShortKeyWhilePairingKeepsNoBond() throws {
        let (rig, _) = try pairingRig()
        rig.encryptionKeySize = 7
        rig.start()
        #expect(rig.errors.contains { $0.hasPrefix("pairing:") })
        #expect(!rig.events.contains { if case .encrypted = $0 { return true } else { return false } })
        #expect(rig.savedBond == nil)
    }
}
