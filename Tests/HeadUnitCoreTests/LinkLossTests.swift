import ANCS
import BluetoothCore
import HCI
import HeadUnitCore
import NavigationNotifier
import ScriptedPeers
@testable import ScriptedPairing
import Testing

/// The link lost at each point of its life: everything about it goes with
/// it (one PhoneLink, ended in one place), nothing it showed stays on the
/// screen, and the head unit finds the phone again.
@Suite struct LinkLossTests {
    enum Stage: String, CaseIterable {
        /// Connected, the NavigationNotifier names not yet exchanged.
        case beforeNameExchange
        /// The passkey on screen, the phone not yet answering.
        case duringPairing
        /// Encrypted and bonded, ANCS not yet published.
        case encrypted
        /// ANCS running, a Maps instruction on screen.
        case showingNavigation
    }

    @Test(arguments: Stage.allCases)
    func linkLostAt(_ stage: Stage) throws {
        let (rig, smp) = try pairingRig()
        switch stage {
        case .beforeNameExchange:
            rig.phoneAnswersATT = false
            rig.start()
        case .duringPairing:
            rig.smp = silentAfterPublicKey(smp)
            rig.start()
            #expect(rig.core.passkeyShown != nil)
        case .encrypted:
            rig.start()
        case .showingNavigation:
            rig.start()
            rig.phoneSends(rig.phone.publishANCS())
            rig.phoneSends(rig.phone.post(5, .init(app: "com.google.Maps", title: "In 300 m", message: "Keep left")))
            #expect(rig.screen().navigation?.title == "In 300 m")
        }
        #expect(rig.core.links.count == 1)

        rig.dropLink()
        #expect(rig.core.links.isEmpty)
        #expect(rig.core.passkeyShown == nil)
        #expect(rig.screen().navigation == nil)
        #expect(rig.screen().passkey == nil)
        #expect(rig.core.notifications.shown.isEmpty)

        // Found again, and this time everything goes through; in a discovery
        // round a phone lost before its names were read is not tried again
        // until the next round.
        rig.phoneAnswersATT = true
        wire(rig, to: smp)
        rig.advance(milliseconds: 2_000)
        if stage == .beforeNameExchange {
            #expect(rig.connectionAttempts == 1)
            #expect(rig.states.last == .discovering)
            rig.console("scan")
            rig.advance(milliseconds: 2_000)
        }
        #expect(rig.core.links.count == 1)
        #expect(rig.states.last == .connected(server: "Anna-iPhone-7F3A"))
        #expect(rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
    }

    /// A link that drops during the handshake of one phone never leaves
    /// state behind for the next link that gets the same handle.
    @Test func theSameHandleOnTheNextLinkStartsClean() throws {
        let (rig, _) = try pairingRig()
        rig.start()
        rig.phoneSends(rig.phone.publishANCS())
        rig.phoneSends(rig.phone.post(5, .init(app: "com.google.Maps", title: "In 300 m", message: "Keep left")))
        rig.dropLink()
        rig.advance(milliseconds: 2_000)
        let link = try #require(rig.core.links.values.first)
        #expect(link.handle == ConnectionHandle(rig.link))
        // The new link's ANCS starts from nothing: the phone publishes again
        // on this connection (same database, same handles), and only the new
        // notification is shown.
        rig.phoneSends(rig.phone.post(6, .init(app: "com.google.Maps", title: "In 100 m", message: "Keep right")))
        #expect(rig.core.notifications.shown.map(\.title) == ["In 100 m"])
    }
}
