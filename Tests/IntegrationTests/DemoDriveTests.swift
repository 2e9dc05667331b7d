import Foundation
import Testing

/// The main job as a test: scripts/demo.py drives the head unit through a
/// whole trip; the events and the frames it leaves behind are checked.
@Suite struct DemoDriveTests {
    @Test func scriptedDriveEndsWithEverythingShownThatShouldBe() throws {
        let out = Paths.temporaryDirectory("demo").appendingPathComponent("demo")
        let process = Process()
        process.executableURL = Paths.python
        process.arguments = [Paths.packageRoot.appendingPathComponent("scripts/demo.py").path]
        var environment = ProcessInfo.processInfo.environment
        environment["DEMO_OUT"] = out.path
        environment["HEADUNIT_BIN"] = Paths.headunit.path
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)")

        let lines = try String(contentsOf: out.appendingPathComponent("events.jsonl"), encoding: .utf8).split(separator: "\n")
        let events = lines.compactMap { PhoneSimulator.parse(String($0)) }
        func named(_ name: String) -> [[String: Any]] { events.filter { $0["event"] as? String == name } }
        #expect(named("paired").first?["method"] as? String == "passkey")
        let notifications = named("notification")
        // Dropped again in the session after the phone came back (PreExisting).
        #expect(notifications.filter { $0["action"] as? String == "dropped" }.count >= 2)
        #expect(notifications.allSatisfy { $0["action"] as? String != "dropped" || $0["title"] is NSNull })
        #expect(notifications.contains { $0["kind"] as? String == "navigation" && $0["action"] as? String == "shown" })
        #expect(notifications.contains { $0["kind"] as? String == "navigation" && $0["action"] as? String == "removed" })
        // Maps in Spanish, Japanese and Arabic: understood whatever the language.
        for (title, maneuver, metres) in [("En 300 m, gira a la izquierda", "left", 300), ("500 m 先、右折です", "right", 500),
                                          ("بعد 200 م، انعطف يسارًا", "left", 200)] {
            let shown = notifications.first { $0["action"] as? String == "shown" && $0["title"] as? String == title }
            #expect(shown?["maneuver"] as? String == maneuver, "\(title): \(String(describing: shown))")
            #expect(shown?["distance_m"] as? Int == metres, "\(title): \(String(describing: shown))")
        }
        #expect(named("now_playing").contains { $0["title"] as? String == "Under Pressure" })
        // The phone with the app after pairing, and with the bond after it came
        // back; then a stock iPhone paired from Settings.
        let encrypted = named("encrypted")
        #expect(encrypted.count == 3)
        #expect((encrypted.last?["server"] as? String)?.hasPrefix("settings ") == true)
        #expect(named("accessory").contains { $0["state"] as? String == "connected" })
        // Its NotifBridge app forwards a Maps instruction that is shown.
        #expect(notifications.contains { $0["via"] as? String == "notifbridge" && $0["action"] as? String == "shown" })
        #expect(named("frame").count >= 10)

        // The frames: the drive's snapshots exist and hold a drawn screen.
        for snapshot in ["1-passkey", "2-navigation-and-music", "3-phone-away", "es", "ja", "ar",
                         "settings-pairing", "settings-passkey", "settings-navigation-and-music", "notifbridge"] {
            let data = try Data(contentsOf: out.appendingPathComponent("\(snapshot).png"))
            #expect(data.count > 5_000, "\(snapshot).png is \(data.count) bytes")
            #expect(data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        }
    }
}
