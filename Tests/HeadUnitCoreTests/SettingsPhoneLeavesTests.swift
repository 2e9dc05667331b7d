import BluetoothCore
import HeadUnitCore
import NavigationNotifier
import ScreenValues
import ScriptedPeers
import Testing
@testable import ScriptedPairing

/// docs/PROTOCOL.md §1, rule 9: after the driver's Disconnect or Unpair the
/// head unit waits for the driver, also when an iPhone paired from Settings
/// came and went in between.
@Suite struct SettingsPhoneLeavesTests {
    enum Choice: String, CaseIterable {
        case disconnect, unpair
    }

    @Test(arguments: Choice.allCases)
    func theDriversChoiceStandsWhenTheSettingsIPhoneLeaves(_ choice: Choice) throws {
        let two = try TwoPhones()
        let rig = two.rig
        rig.phoneAdvertises = true
        rig.start()
        #expect(rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
        rig.console(choice.rawValue)
        rig.advance(milliseconds: 1_000)
        #expect(rig.core.links.isEmpty)
        let waiting: PairingState = choice == .unpair ? .discover : .remembered(server: "Anna-iPhone-7F3A")
        #expect(rig.states.last == waiting)
        #expect(rig.connectionAttempts == 1)

        // An iPhone pairs from Settings, is the phone for a while, and leaves.
        try two.iphoneTapsTheHeadUnit()
        try two.iphoneFinishesPairing()
        #expect(two.accessoryStates.last == .connected)
        rig.dropLink(of: two.iphone)
        // The app phone advertises all along (UNPAIRED after an unpair:
        // free to be grabbed again); the head unit does not look.
        rig.deliver([rig.first.advertisement()])
        rig.advance(milliseconds: 5_000)
        #expect(rig.connectionAttempts == 1)
        #expect(rig.states.last == waiting)
        #expect(rig.screen().pairing == waiting)

        // Until the driver asks.
        rig.console("scan")
        rig.advance(milliseconds: 500)
        #expect(rig.connectionAttempts == 2)
    }

    /// Without the driver's choice the routine looks again when the iPhone leaves.
    @Test func theSearchResumesWhenItWasLookingBefore() throws {
        let two = try TwoPhones()
        let rig = two.rig
        rig.start()
        #expect(rig.states.last == .discovering)
        try two.iphoneTapsTheHeadUnit()
        try two.iphoneFinishesPairing()
        #expect(two.accessoryStates.last == .connected)
        rig.dropLink(of: two.iphone)
        #expect(rig.states.last == .discovering)
        two.appPhoneIsHeard()
        #expect(rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
    }
}
