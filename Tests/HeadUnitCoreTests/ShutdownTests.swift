import HCI
import HeadUnitCore
import ScriptedPeers
import Testing

/// The shell is shutting down (SIGTERM before a reboot or power-off): the
/// links end politely, and nothing new starts before the process exits.
@Suite struct ShutdownTests {
    /// The routine used to take the link's end for a link lost, scan and
    /// connect to the phone again in the half second before the process
    /// exited: the phone was left with a link to a head unit that was gone,
    /// and the controller kept talking to a board that was rebooting.
    @Test func shuttingDownEndsTheLinkAndConnectsToNobodyAgain() throws {
        let (rig, _) = try pairingRig()
        rig.start()
        #expect(rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
        let mark = rig.commands.count
        #expect(rig.core.disconnectAll(now: rig.now))
        rig.advance(milliseconds: 1)
        #expect(!rig.first.isLinkUp)
        #expect(rig.first.disconnectReason == 0x13)
        rig.dropLink(reason: 0x16)
        // The phone goes on advertising, as it does when a link ends.
        rig.first.advertises = true
        rig.advance(milliseconds: 5_000)
        let after = Array(rig.commands.dropFirst(mark))
        #expect(!after.contains(.leCreateConnection), "connected again while shutting down: \(after)")
        #expect(!rig.first.isLinkUp)
        #expect(rig.core.links.isEmpty)
    }
}
