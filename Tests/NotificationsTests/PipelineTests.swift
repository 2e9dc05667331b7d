import ANCS
import BluetoothCore
import Testing
@testable import Notifications

/// The ANCS client and the model wired the way the head unit wires them,
/// fed the bytes a phone sends at MTU 23.
@Suite struct PipelineTests {
    let handle = ConnectionHandle(0x40)

    /// The owner's side: answers GATT actions, passes events to the model.
    final class Owner {
        let model = NotificationModel()
        let client: ANCSClient
        var now = Instant(milliseconds: 5_000)
        var writes: [[UInt8]] = []
        var modelEvents: [NotificationEvent] = []
        /// How often the client ended its subscriptions to start again.
        var resubscriptions = 0

        init(handle: ConnectionHandle) {
            let model = self.model
            client = ANCSClient(connection: handle, wantsText: { model.wantsText($0) })
        }

        func run() {
            while let action = client.pollAction() {
                switch action {
                case .discover: client.discoveryCompleted(.found(Set(ANCSCharacteristic.allCases)), now: now)
                case .subscribe(_, let c): client.subscribeCompleted(c, .done, now: now)
                case .unsubscribe(_, let c):
                    if c == .notificationSource { resubscriptions += 1 }
                    client.unsubscribeCompleted(c, .done, now: now)
                case .writeControlPoint(_, let bytes) where Array(bytes.prefix(5)) == [0, 0xFF, 0xFF, 0xFF, 0xFF]:
                    // The liveness probe: a phone answers 0xA2 (no such notification).
                    client.controlPointWriteCompleted(.attError(0xA2), now: now)
                case .writeControlPoint(_, let bytes):
                    writes.append(bytes)
                    client.controlPointWriteCompleted(.done, now: now)
                case .event(let event):
                    model.handle(event)
                    client.setNotificationsExpected(model.expectsUpdates, now: now)
                }
            }
            while let e = model.pollEvent() { modelEvents.append(e) }
        }

        func source(_ event: EventID, _ category: CategoryID, uid: UInt32, flags: EventFlags = []) {
            client.notificationSourceReceived(NotificationSourceEvent(eventID: event, flags: flags, category: category,
                                                                      categoryCount: 1, uid: NotificationUID(uid)).bytes, now: now)
            run()
        }

        /// Lets time pass a minute at a time, the client's timers firing on the way.
        func wait(minutes: Int) {
            for _ in 0..<minutes {
                now = now.adding(milliseconds: 60_000)
                if let deadline = client.nextDeadline, deadline <= now { client.handleTimeout(now: now) }
                run()
            }
        }

        /// Answers the last Control Point write, in 20-byte notifications.
        func answer(_ values: [UInt8: String]) {
            guard let last = writes.last, let command = Self.command(last) else { return }
            let response = DataSourceResponse(attributes: Self.ids(last).compactMap { id in
                values[id].map { DataSourceResponse.Attribute(id: id, value: Array($0.utf8)) }
            })
            let bytes = response.encoded(answering: command)
            var index = 0
            while index < bytes.count {
                client.dataSourceReceived(Array(bytes[index..<min(bytes.count, index + 20)]), now: now)
                index += 20
            }
            run()
        }

        /// Reads back what a write asked for (the phone's view of it).
        static func command(_ bytes: [UInt8]) -> ControlPointCommand? {
            guard bytes.count >= 5 else { return nil }
            switch bytes[0] {
            case 0:
                let uid = UInt32(bytes[1]) | UInt32(bytes[2]) << 8 | UInt32(bytes[3]) << 16 | UInt32(bytes[4]) << 24
                return .getNotificationAttributes(NotificationUID(uid), [])
            case 1:
                let app = bytes[1...].prefix { $0 != 0 }
                return .getAppAttributes(AppIdentifier(String(decoding: app, as: UTF8.self)), [])
            default:
                return nil
            }
        }

        static func ids(_ bytes: [UInt8]) -> [UInt8] {
            if bytes[0] == 1 { return [bytes.last ?? 0] }
            var ids: [UInt8] = []
            var i = 5
            while i < bytes.count {
                ids.append(bytes[i])
                i += (1...3).contains(bytes[i]) ? 3 : 1
            }
            return ids
        }

        func asked(about uid: UInt32) -> [[UInt8]] {
            writes.filter { $0[0] == 0 && Array($0[1...4]) == [UInt8(uid & 0xFF), UInt8(uid >> 8 & 0xFF), UInt8(uid >> 16 & 0xFF), UInt8(uid >> 24)] }
        }
    }

    /// An owner whose client runs its session.
    func started() -> Owner {
        let o = Owner(handle: handle)
        o.client.start(now: o.now)
        o.run()
        return o
    }

    @Test func mapsInstructionAppearsUpdatesDisappearsAndAChatIsDropped() {
        let o = started()
        #expect(o.client.isSessionActive)

        // PreExisting: a chat message and the current turn instruction.
        o.source(.added, .social, uid: 1, flags: [.preExisting])
        o.source(.added, .location, uid: 2, flags: [.preExisting])
        o.answer([0: "com.apple.MobileSMS"]) // identify 1: dropped
        o.answer([0: "com.google.Maps"])     // identify 2: wanted
        o.answer([0: "Google Maps"])         // its display name
        o.answer([1: "500 m", 2: "", 3: "Turn right onto Bahnhofstrasse", 5: "20240611T081530"])
        #expect(o.model.navigation?.title == "500 m")
        #expect(o.model.navigation?.message == "Turn right onto Bahnhofstrasse")
        // A replay says nothing of whether Maps is still updating it.
        #expect(!o.client.notificationsExpected)

        // Maps updates the distance.
        o.source(.modified, .location, uid: 2)
        o.answer([1: "100 m", 2: "", 3: "Turn right onto Bahnhofstrasse", 5: "20240611T081610"])
        #expect(o.model.navigation?.title == "100 m")
        #expect(o.client.notificationsExpected)

        // The turn is done.
        o.source(.removed, .location, uid: 2)
        #expect(o.model.navigation == nil)
        #expect(!o.client.notificationsExpected)

        #expect(o.modelEvents.map { "\($0.action) \($0.uid) \($0.kind)" } == [
            "dropped 1 other", "shown 2 navigation", "updated 2 navigation", "removed 2 navigation",
        ])
        #expect(o.modelEvents[0].title == nil && o.modelEvents[0].message == nil)
        #expect(o.modelEvents[1].appName == "Google Maps")
        // The phone was never asked for the chat's text: one write named UID 1,
        // and it asked for the AppIdentifier alone.
        #expect(o.asked(about: 1) == [[0, 1, 0, 0, 0, 0]])
        #expect(o.model.droppedCounts == [.social: 1])
    }

    /// A Location notification that stays after the drive (Maps never
    /// updates it again) costs one re-subscription, not one every ten minutes.
    @Test func aStaleInstructionIsNotResubscribedForAgainAndAgain() {
        let o = started()
        o.source(.added, .location, uid: 1)
        o.answer([0: "com.google.Maps"])
        o.answer([0: "Google Maps"])
        o.answer([1: "Arrived", 2: "", 3: "Main St 5", 5: "20240611T081530"])
        #expect(o.client.notificationsExpected)
        // Ten minutes without a change while an instruction is up: the
        // Notification Source may have stopped; subscribe again.
        o.wait(minutes: 10)
        #expect(o.resubscriptions == 1)
        #expect(o.model.navigation == nil)
        // The new session replays it as PreExisting.
        o.source(.added, .location, uid: 7, flags: [.preExisting])
        o.answer([0: "com.google.Maps"])
        o.answer([1: "Arrived", 2: "", 3: "Main St 5", 5: "20240611T081530"])
        #expect(o.model.navigation?.title == "Arrived")
        #expect(!o.client.notificationsExpected)
        // An hour later it is still there, and so is the session.
        o.wait(minutes: 60)
        #expect(o.resubscriptions == 1)
        #expect(o.model.navigation?.title == "Arrived")
        // A real change makes the instruction live again.
        o.source(.modified, .location, uid: 7)
        o.answer([1: "New route", 2: "", 3: "Turn around", 5: "20240611T091530"])
        #expect(o.client.notificationsExpected)
    }

    /// A notification dropped for its app and category is looked at again
    /// when it changes: its category may now say navigation.
    @Test func aDroppedNotificationThatChangesIsFilteredAgain() {
        let o = started()
        o.source(.added, .other, uid: 3)
        o.answer([0: "com.citymapper.app"])
        #expect(o.modelEvents.map { "\($0.action) \($0.uid) \($0.kind)" } == ["dropped 3 other"])
        // The app turns it into a turn instruction.
        o.source(.modified, .location, uid: 3)
        // Privacy first: the AppIdentifier alone is asked for again...
        #expect(o.writes.last == [0, 3, 0, 0, 0, 0])
        o.answer([0: "com.citymapper.app"])
        #expect(o.writes.last?.first == CommandID.getAppAttributes.rawValue)
        o.answer([0: "Citymapper"])
        // ...and only now that the filter says yes, its text.
        #expect(o.writes.last.map { Array($0.prefix(6)) } == [0, 3, 0, 0, 0, 1])
        o.answer([1: "In 300 m", 2: "", 3: "Turn right", 5: "20240611T081530"])
        #expect(o.model.navigation?.title == "In 300 m")
        #expect(o.modelEvents.map { "\($0.action) \($0.uid) \($0.kind)" } == ["dropped 3 other", "shown 3 navigation"])
    }
}
