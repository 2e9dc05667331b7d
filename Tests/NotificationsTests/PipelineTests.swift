import ANCS
import BluetoothCore
import HeadUnitCore
import Notifications
import ScriptedPeers
import SMP
import Testing

/// The filter and the model inside the head unit's core, fed the bytes a
/// phone sends at an ATT_MTU of 23: the same path as the firmware, from H4
/// to the model's events.
@Suite struct PipelineTests {
    /// A core that knows the phone (remembered, bonded) and is showing its ANCS.
    func connectedRig() -> CoreRig {
        let bond = BondRecord(peerIdentityAddress: CoreRig.defaultPhoneAddress, peerIRK: nil,
                              longTermKey: LongTermKey(bytes: [UInt8](repeating: 0x42, count: 16))!,
                              keySize: 16, authenticated: true, secureConnections: true, localIRK: nil)
        let stored = StoredState(clientName: "HU-3F9A21", rememberedServer: "Anna-iPhone-7F3A", bonds: ["Anna-iPhone-7F3A": bond])
        let phone = ScriptedPhone(pairedClientName: "HU-3F9A21", publishesANCSAfterBonding: false)
        phone.maximumMTU = 23
        let rig = CoreRig(stored: stored, phone: phone)
        rig.start()
        return rig
    }

    func modelEvents(_ rig: CoreRig) -> [NotificationEvent] {
        rig.events.compactMap { if case .notification(let n) = $0 { return n } else { return nil } }
    }

    /// The Control Point writes that named `uid`.
    func asked(_ rig: CoreRig, about uid: UInt32) -> [[UInt8]] {
        let le: [UInt8] = [UInt8(uid & 0xFF), UInt8(uid >> 8 & 0xFF), UInt8(uid >> 16 & 0xFF), UInt8(uid >> 24)]
        return rig.phone.controlPointWrites.filter { $0.count >= 5 && $0[0] == 0 && Array($0[1...4]) == le }
    }

    @Test func mapsInstructionAppearsUpdatesDisappearsAndAChatIsDropped() {
        let rig = connectedRig()
        #expect(rig.phone.mtu == 23)
        #expect(rig.phone.isSubscribed(rig.phone.handles.notificationSource))

        // PreExisting: a chat message and the current turn instruction.
        rig.phoneSends(rig.phone.post(1, .init(app: "com.apple.MobileSMS", title: "Anna", message: "Running late", category: .social),
                                      flags: [.preExisting]))
        rig.phoneSends(rig.phone.post(2, .init(app: "com.google.Maps", title: "500 m", message: "Turn right onto Bahnhofstrasse"),
                                      flags: [.preExisting]))
        let core = rig.core
        #expect(core.notifications.navigation?.title == "500 m")
        #expect(core.notifications.navigation?.message == "Turn right onto Bahnhofstrasse")

        // Maps updates the distance.
        rig.phoneSends(rig.phone.post(2, .init(app: "com.google.Maps", title: "100 m", message: "Turn right onto Bahnhofstrasse"),
                                      event: .modified))
        #expect(core.notifications.navigation?.title == "100 m")

        // The turn is done.
        rig.phoneSends(rig.phone.remove(2))
        #expect(core.notifications.navigation == nil)

        let events = modelEvents(rig)
        #expect(events.map { "\($0.action) \($0.uid) \($0.kind)" } == [
            "dropped 1 other", "shown 2 navigation", "updated 2 navigation", "removed 2 navigation",
        ])
        #expect(events[0].title == nil && events[0].message == nil)
        #expect(events[1].appName == "Google Maps")
        // The phone was never asked for the chat's text: one write named UID 1,
        // and it asked for the AppIdentifier alone.
        #expect(asked(rig, about: 1) == [[0, 1, 0, 0, 0, 0]])
        #expect(core.notifications.droppedCounts == [.social: 1])
    }
}
