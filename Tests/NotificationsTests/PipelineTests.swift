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
    func connectedRig(mtu: Int = 23) -> CoreRig {
        let bond = BondRecord(peerIdentityAddress: CoreRig.defaultPhoneAddress, peerIRK: nil,
                              longTermKey: LongTermKey(bytes: [UInt8](repeating: 0x42, count: 16))!,
                              keySize: 16, authenticated: true, secureConnections: true, localIRK: nil)
        let stored = StoredState(clientName: "HU-3F9A21", rememberedServer: "Anna-iPhone-7F3A", bonds: ["Anna-iPhone-7F3A": bond])
        let phone = ScriptedPhone(pairedClientName: "HU-3F9A21", publishesANCSAfterBonding: false)
        phone.maximumMTU = mtu
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
        // A replay says nothing of whether Maps is still updating it.
        #expect(!core.notifications.expectsUpdates)

        // Maps updates the distance.
        rig.phoneSends(rig.phone.post(2, .init(app: "com.google.Maps", title: "100 m", message: "Turn right onto Bahnhofstrasse"),
                                      event: .modified))
        #expect(core.notifications.navigation?.title == "100 m")
        #expect(core.notifications.expectsUpdates)

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

    /// A Location notification that stays after the drive (Maps never
    /// updates it again) costs one re-subscription, not one every ten minutes.
    @Test func aStaleInstructionIsNotResubscribedForAgainAndAgain() {
        let rig = connectedRig()
        let core = rig.core
        rig.phoneSends(rig.phone.post(1, .init(app: "com.google.Maps", title: "Arrived", message: "Main St 5")))
        #expect(core.notifications.expectsUpdates)
        // Ten minutes without a change while an instruction is up: the
        // Notification Source may have stopped; subscribe again.
        rig.advance(milliseconds: 10 * 60_000)
        #expect(rig.phone.notificationSourceUnsubscriptions == 1)
        #expect(rig.phone.isSubscribed(rig.phone.handles.notificationSource))
        #expect(core.notifications.navigation == nil)
        // The new session replays it as PreExisting.
        rig.phoneSends(rig.phone.post(7, .init(app: "com.google.Maps", title: "Arrived", message: "Main St 5"),
                                      flags: [.preExisting]))
        #expect(core.notifications.navigation?.title == "Arrived")
        #expect(!core.notifications.expectsUpdates)
        // An hour later it is still there, and so is the session.
        rig.advance(milliseconds: 60 * 60_000)
        #expect(rig.phone.notificationSourceUnsubscriptions == 1)
        #expect(core.notifications.navigation?.title == "Arrived")
        // A real change makes the instruction live again.
        rig.phoneSends(rig.phone.post(7, .init(app: "com.google.Maps", title: "New route", message: "Turn around"),
                                      event: .modified))
        #expect(core.notifications.navigation?.title == "New route")
        #expect(core.notifications.expectsUpdates)
    }

    /// A notification dropped for its app and category is looked at again
    /// when it changes: its category may now say navigation.
    @Test func aDroppedNotificationThatChangesIsFilteredAgain() {
        // GetAppAttributes for this bundle ID takes 21 bytes: more than one
        // Write Request carries at an ATT_MTU of 23.
        let rig = connectedRig(mtu: 185)
        rig.phone.appNames["com.citymapper.app"] = "Citymapper"
        let trip = ScriptedPhone.Notification(app: "com.citymapper.app", title: "In 300 m", message: "Turn right", category: .other)
        rig.phoneSends(rig.phone.post(3, trip))
        #expect(modelEvents(rig).map { "\($0.action) \($0.uid) \($0.kind)" } == ["dropped 3 other"])
        // The app turns it into a turn instruction.
        let before = rig.phone.controlPointWrites.count
        var instruction = trip
        instruction.category = .location
        rig.phoneSends(rig.phone.post(3, instruction, event: .modified))
        let writes = Array(rig.phone.controlPointWrites[before...])
        #expect(writes.count == 3)
        guard writes.count == 3 else { return }
        // Privacy first: the AppIdentifier alone is asked for again...
        #expect(writes[0] == [0, 3, 0, 0, 0, 0])
        #expect(writes[1].first == CommandID.getAppAttributes.rawValue)
        // ...and only once the filter says yes, its text.
        #expect(Array(writes[2].prefix(6)) == [0, 3, 0, 0, 0, 1])
        #expect(rig.core.notifications.navigation?.title == "In 300 m")
        #expect(modelEvents(rig).map { "\($0.action) \($0.uid) \($0.kind)" } == ["dropped 3 other", "shown 3 navigation"])
    }
}
