import ANCS
import BluetoothCore
import HCI
import HeadUnitCore
import NavigationNotifier
import ScriptedPeers
@testable import ScriptedPairing
import SMP
import Testing

/// The whole head unit without I/O, from a controller coming up to a
/// notification on the screen model, in virtual time.
@Suite struct LinkLifecycleTests {
    @Test func aNewPhoneIsPairedBondedAndItsNavigationShown() throws {
        let (rig, smp) = try pairingRig()
        rig.start()
        #expect(rig.states == [.discover, .discovering, .connecting(server: nil), .connecting(server: "Anna-iPhone-7F3A"),
                               .connected(server: "Anna-iPhone-7F3A")])
        #expect(rig.phone.pairedClientName == clientName)
        #expect(rig.phone.isSubscribed(rig.phone.handles.pairedClientName))
        #expect(rig.writes.first == .rememberServer("Anna-iPhone-7F3A"))
        // Passkey entry with LE Secure Connections, our keys given, theirs kept.
        #expect(rig.eventNames.contains("passkey"))
        let paired = rig.events.first { if case .paired = $0 { return true } else { return false } }
        #expect(paired == .paired(server: "Anna-iPhone-7F3A", method: .passkeyEntry, secureConnections: true, mitm: true))
        #expect(rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
        let bond = try #require(rig.savedBond)
        #expect(bond.peerIRK == smp.irk && bond.peerIdentityAddress == smp.identityAddress)
        #expect(smp.receivedIRK != nil)
        #expect(rig.core.passkeyShown == nil)
        // The phone's clock, read from its Current Time Service.
        #expect(rig.screen().clock == "8:15")

        // ANCS is not there yet: nothing subscribed on it.
        #expect(rig.phone.handles.notificationSource.value == 0)
        rig.phoneSends(rig.phone.publishANCS())
        #expect(rig.phone.isSubscribed(rig.phone.handles.notificationSource))
        #expect(rig.phone.isSubscribed(rig.phone.handles.dataSource))
        rig.phoneSends(rig.phone.post(7, .init(app: "com.google.Maps", title: "In 500 m", message: "Turn left onto Market Street")))
        #expect(rig.shownNotifications == ["In 500 m"])
        #expect(rig.screen().navigation?.title == "In 500 m")
        #expect(rig.screen().navigation?.app == "Google Maps")
        #expect(rig.writes.contains { if case .appNames = $0 { return true } else { return false } })

        // One link, holding everything about the phone.
        let link = try #require(rig.core.links.values.first)
        #expect(rig.core.links.count == 1)
        #expect(link.role == .central && link.server == "Anna-iPhone-7F3A" && link.peer == rig.phoneAddress)
        #expect(link.mtu == 247)
    }

    /// A phone remembered and bonded: encrypted with the bond, no pairing.
    @Test func aBondedPhoneIsEncryptedWithItsBondWithoutPairing() throws {
        let (first, _) = try pairingRig()
        first.start()
        let bond = try #require(first.savedBond)

        let rig = CoreRig(stored: bondedState(bond), phone: ScriptedPhone(pairedClientName: clientName))
        var asked: [UInt8] = []
        rig.encryption = { ltk in
            asked = ltk
            return (0, [])
        }
        rig.start()
        #expect(rig.smpSent.isEmpty)
        #expect(asked == bond.longTermKey.bytes)
        #expect(rig.states.last == .connected(server: "Anna-iPhone-7F3A"))
        #expect(rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
        #expect(!rig.eventNames.contains("paired"))
        #expect(rig.writes.isEmpty)
    }

    /// The phone's Unpair button: UNPAIRED notified, the head unit forgets
    /// the phone and its bond and waits for the user.
    @Test func unpairOnThePhoneForgetsTheServerAndItsBond() throws {
        let (rig, _) = try pairingRig()
        rig.start()
        _ = rig.takeConsoleLines()
        rig.phoneSends(rig.phone.unpair())
        #expect(rig.writes.suffix(2) == [.forgetServer, .deleteBond(server: "Anna-iPhone-7F3A")])
        #expect(rig.core.links.isEmpty)
        #expect(rig.states.last == .discover)
        rig.console("bonds")
        #expect(rig.takeConsoleLines() == ["remembered server: none", "no bonds"])
    }

    /// The console's `unpair`: UNPAIRED written first, then the link ends.
    @Test func unpairOnTheConsoleWritesUnpairedFirst() throws {
        let (rig, _) = try pairingRig()
        rig.start()
        rig.console("unpair")
        #expect(rig.phone.pairedClientName == "UNPAIRED")
        #expect(rig.core.links.isEmpty && !rig.isLinkUp)
        #expect(rig.writes.contains(.forgetServer))
        #expect(rig.states.last == .discover)
    }

    /// A phone paired with another head unit is skipped.
    @Test func aPhonePairedElsewhereIsNotTaken() throws {
        let (rig, _) = try pairingRig(phone: ScriptedPhone(pairedClientName: "HU-000001"))
        rig.start()
        #expect(rig.phone.pairedClientName == "HU-000001")
        #expect(rig.smpSent.isEmpty)
        #expect(rig.writes.isEmpty)
        #expect(rig.core.links.isEmpty)
    }
}
