import ANCS
import BluetoothCore
import Foundation
import HeadUnitCore
import Notifications
import Platform
import Testing
@testable import App

/// The core's events as the event log writes them: the field names and
/// values are the automation contract of the README's event table.
@Suite struct EventLogTests {
    func lines(_ events: [CoreEvent]) throws -> [[String: Any]] {
        let path = NSTemporaryDirectory() + "events-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let log = EventLog(path: path)
        for e in events { log.write(e) }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map {
            try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
    }

    @Test func writesEachEventWithItsContractFields() throws {
        let shown = NotificationEvent(action: .shown, uid: NotificationUID(7), app: AppIdentifier("com.google.Maps"),
                                      category: .location, kind: .navigation, title: "In 500 m", message: "Turn left")
        let out = try lines([
            .state(.connected(server: "Anna-7F")),
            .passkey("012345"),
            .paired(server: "Anna-7F", method: .passkeyEntry, secureConnections: true, mitm: true),
            .encrypted(server: "Anna-7F", bonded: true),
            .notification(shown),
            .error(.phoneForgot),
        ])
        #expect(out.map { $0["event"] as? String } == ["state", "passkey", "paired", "encrypted", "notification", "error"])
        #expect(out.allSatisfy { $0["t_ms"] is Int })
        #expect(out[0]["state"] as? String == "connected" && out[0]["server"] as? String == "Anna-7F")
        #expect(out[1]["passkey"] as? String == "012345")
        #expect(out[2]["method"] as? String == "passkey" && out[2]["secure_connections"] as? Bool == true && out[2]["mitm"] as? Bool == true)
        #expect(out[3]["bonded"] as? Bool == true)
        #expect(out[4]["action"] as? String == "shown" && out[4]["uid"] as? Int == 7 && out[4]["app"] as? String == "com.google.Maps")
        #expect(out[4]["kind"] as? String == "navigation" && out[4]["title"] as? String == "In 500 m" && out[4]["message"] as? String == "Turn left")
        #expect(out[5]["what"] as? String == "bond" && out[5]["detail"] as? String == "Phone forgot this head unit: pair again")
        #expect(out[4]["via"] == nil, "read through ANCS")
    }

    @Test func aForwardedNotificationSaysSo() throws {
        let model = NotificationModel()
        BridgedNotificationIntake(model: model).received(app: "com.google.Maps", notificationID: "n1", appName: "Google Maps",
                                                         title: "In 200 m", subtitle: nil, body: "Turn right")
        let out = try lines([.notification(try #require(model.pollEvent()))])
        #expect(out[0]["via"] as? String == "notifbridge")
        #expect(out[0]["title"] as? String == "In 200 m")
    }

    /// A notification's line is byte for byte what its fields written as
    /// strings make (the action's, kind's and maneuver's names, the
    /// category's, a reserved one's too), for every action, kind,
    /// maneuver and category, with and without text.
    @Test func notificationLinesAreTheirFieldsAsStrings() throws {
        var events: [NotificationEvent] = []
        for action in [NotificationEventAction.shown, .updated, .removed, .dropped] {
            for kind in NotificationKind.allCases {
                for category in (0...13).map({ CategoryID(UInt8($0 == 13 ? 200 : $0)) }) {
                    events.append(NotificationEvent(action: action, uid: NotificationUID(UInt32(events.count)),
                                                    app: category.rawValue == 3 ? nil : AppIdentifier("com.google.Maps"),
                                                    category: category, kind: kind,
                                                    title: action == .dropped ? nil : "In 1,5 km \"A1\"", message: "Turn left"))
                }
            }
        }
        var guided = try #require(events.first { $0.guidance != nil })
        // Every maneuver (its type named through the value: this target does not import Guidance).
        for maneuver in type(of: try #require(guided.guidance).maneuver).allCases {
            guided.guidance?.maneuver = maneuver
            events.append(guided)
        }
        func reference(_ e: NotificationEvent) -> String {
            var j = JSONLine()
            j.field("t_ms", Int64(0))
            j.field("event", "notification")
            j.field("action", e.action.description)
            j.field("uid", Int(e.uid.value))
            j.field("app", e.app?.description)
            j.field("category", e.category.name)
            j.field("kind", e.kind.description)
            j.field("title", e.title)
            j.field("message", e.message)
            if e.source == .notifBridge { j.field("via", "notifbridge") }
            if let g = e.guidance { j.field("maneuver", g.maneuver.eventName) }
            if let exit = e.guidance?.roundaboutExit { j.field("roundabout_exit", exit) }
            if let metres = e.guidance?.distance?.metres { j.field("distance_m", metres) }
            return j.line
        }
        let path = NSTemporaryDirectory() + "events-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let log = EventLog(path: path, clock: VirtualClock(Instant(milliseconds: 1_000)))
        log.batch { for e in events { log.write(.notification(e)) } }
        let written = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(written == events.map(reference))
        #expect(written.contains { $0.contains("\"category\": \"Reserved(200)\"") })
        #expect(written.contains { $0.contains("\"maneuver\": \"slight_right\"") && $0.contains("\"distance_m\": 1500") })
    }

    /// A batch writes the lines it held as they would have been written one
    /// by one, in order, whole, with nothing between them.
    @Test func aBatchWritesTheSameLinesAsOneByOne() throws {
        let shown = NotificationEvent(action: .shown, uid: NotificationUID(8), app: AppIdentifier("com.google.Maps"),
                                      category: .location, kind: .navigation, title: "In 300 m \"Main\"", message: "Turn left")
        let events: [CoreEvent] = [.state(.connected(server: "Anna-7F")), .notification(shown), .passkey("000123")]
        func written(batched: Bool) throws -> [String] {
            let path = NSTemporaryDirectory() + "events-\(UUID().uuidString).jsonl"
            defer { try? FileManager.default.removeItem(atPath: path) }
            // Time stands still, so two logs' lines compare byte for byte.
            let log = EventLog(path: path, clock: VirtualClock(Instant(milliseconds: 1_000)))
            if batched {
                log.batch { for e in events { log.write(e) } }
                log.batch {}
            } else {
                for e in events { log.write(e) }
            }
            log.write(.passkey("999999"))
            return try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\n")
        }
        let oneByOne = try written(batched: false)
        #expect(oneByOne.count == 5 && oneByOne.last == "")
        #expect(oneByOne[0] == "{\"t_ms\": 0, \"event\": \"state\", \"state\": \"connected\", \"server\": \"Anna-7F\"}")
        #expect(try written(batched: true) == oneByOne)
    }
}

