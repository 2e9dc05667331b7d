import HeadUnitCore
import ScriptedPeers
@testable import ScriptedPairing
import Testing

/// The console commands the core answers, on a paired phone showing a
/// Maps instruction: what the shell prints is what the core says.
@Suite struct ConsoleCommandTests {
    func showingNavigation() throws -> CoreRig {
        let (rig, _) = try pairingRig()
        rig.start()
        rig.phoneSends(rig.phone.publishANCS())
        rig.phoneSends(rig.phone.post(9, .init(app: "com.google.Maps", title: "In 80 m", message: "Turn left")))
        rig.phoneSends(rig.phone.post(10, .init(app: "com.apple.MobileSMS", title: "Anna", message: "Hi", category: .social)))
        _ = rig.takeConsoleLines()
        return rig
    }

    @Test func notificationsListsWhatIsShownAndCountsTheDropped() throws {
        let rig = try showingNavigation()
        rig.console("notifications")
        #expect(rig.takeConsoleLines() == ["9 navigation com.google.Maps: In 80 m / Turn left", "dropped: 1"])
    }

    @Test func bondsAndForget() throws {
        let rig = try showingNavigation()
        rig.console("bonds")
        let bonds = rig.takeConsoleLines()
        #expect(bonds.first == "remembered server: Anna-iPhone-7F3A")
        #expect(bonds.count == 2 && bonds[1].hasPrefix("bond Anna-iPhone-7F3A: identity ") && bonds[1].hasSuffix("MITM, secure connections, key size 16"))
        // Forgetting the remembered phone unpairs it first.
        rig.console("forget Anna-iPhone-7F3A")
        #expect(rig.takeConsoleLines() == ["forgot Anna-iPhone-7F3A"])
        #expect(rig.phone.pairedClientName == "UNPAIRED")
        #expect(rig.writes.contains(.deleteBond(server: "Anna-iPhone-7F3A")))
        #expect(rig.core.links.isEmpty)
    }

    @Test func mediaWithoutAMSAndNothingPlaying() throws {
        let rig = try showingNavigation()
        rig.console("media play")
        rig.console("now-playing")
        #expect(rig.takeConsoleLines() == ["the phone does not offer play now", "nothing playing"])
    }

    @Test func disconnectKeepsThePhoneRemembered() throws {
        let rig = try showingNavigation()
        rig.console("disconnect")
        #expect(rig.core.links.isEmpty)
        #expect(rig.core.notifications.shown.isEmpty)
        #expect(!rig.writes.contains(.forgetServer))
        #expect(rig.states.last == .remembered(server: "Anna-iPhone-7F3A"))
        // `connect` finds it again.
        rig.console("connect")
        rig.advance(milliseconds: 500)
        #expect(rig.states.last == .connected(server: "Anna-iPhone-7F3A"))
    }
}
