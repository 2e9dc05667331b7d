import Foundation
import Testing

/// The security promises, end to end against the simulated iPhone: the
/// head unit's GATT server shows a phone nothing but GAP and GATT; nothing
/// a phone sends on an unencrypted link reaches the screen; notification
/// text never reaches the log at the default level (nor, for dropped
/// notifications, the event log); the state files are the owner's alone.
@Suite(.serialized) struct SecurityChecksIntegrationTests {
    func pair(_ unit: RunningHeadUnit, _ phone: PhoneSimulator) throws {
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(phone.waitFor("passkey_requested", timeout: 30) != nil)
        try phone.command("type_passkey", ["phone": "anna", "digits": passkey])
        #expect(unit.waitFor("encrypted", timeout: 30) != nil)
        #expect(phone.waitFor("ancs_session", timeout: 30) { $0["state"] as? String == "started" } != nil)
    }

    /// NotifBridge (on by default, docs/NOTIFBRIDGE.md) is the one vendor service.
    /// As the phone reports them: the 32 hex digits of each 128-bit UUID.
    static let notifBridge = ["D5E12B7A7D8E4F129B5C3F0A1E6D8C44", "D5E12B7A7D8E4F129B5C3F0A1E6D8C46",
                              "D5E12B7A7D8E4F129B5C3F0A1E6D8C47", "D5E12B7A7D8E4F129B5C3F0A1E6D8C4B"]
    /// GhostDrop's service (docs/GHOSTDROP.md): data, control, capabilities.
    static let ghostDrop = ["BFA6E9680F3648888F63C8EC01385E67", "A0F2FA1DF0E643F38B8A642D7E6A0603",
                            "A0F2FA1DF0E643F38B8A642D7E6A0604", "A0F2FA1DF0E643F38B8A642D7E6A0605"]

    @Test func gattServerExposesNothingButGAPGATTNotifBridgeAndGhostDrop() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: "gatt-database")
        defer { unit.stop() }
        try pair(unit, phone)
        // Walked by the phone over an encrypted, bonded link: the most it can see.
        let reply = try phone.command("discover_head_unit", ["phone": "anna"], timeout: 30)
        let services = try #require(reply["services"] as? [[String: Any]])
        let uuids = services.compactMap { $0["uuid"] as? String }
        #expect(uuids.map { $0.uppercased() }.sorted()
                == ["1800", "1801", SecurityChecksIntegrationTests.ghostDrop[0], SecurityChecksIntegrationTests.notifBridge[0]],
                "services: \(uuids)")
        // Every attribute handle lies inside those services: nothing hidden between or after them.
        let ranges = services.compactMap { s -> ClosedRange<Int>? in
            guard let start = s["start"] as? Int, let end = s["end"] as? Int, start <= end else { return nil }
            return start...end
        }
        let attributes = try #require(reply["attributes"] as? [[String: Any]])
        #expect(!attributes.isEmpty)
        for attribute in attributes {
            let handle = attribute["handle"] as? Int ?? -1
            #expect(ranges.contains { $0.contains(handle) }, "attribute \(attribute) outside GAP/GATT")
        }
        let characteristics = services.flatMap { $0["characteristics"] as? [[String: Any]] ?? [] }.compactMap { $0["uuid"] as? String }
        print("GATT database seen by the phone: services \(uuids), characteristics \(characteristics), \(attributes.count) attributes")
        // GAP: Device Name, Appearance (and what GATT needs); no vendor characteristic but NotifBridge's and GhostDrop's.
        let vendor = SecurityChecksIntegrationTests.notifBridge + SecurityChecksIntegrationTests.ghostDrop
        #expect(characteristics.allSatisfy { $0.count == 4 || vendor.contains($0.uppercased()) },
                "a 128-bit (vendor) characteristic: \(characteristics)")
    }

    @Test func nothingFromAnUnencryptedLinkReachesTheScreen() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        // The phone refuses to pair: the link never gets encrypted.
        try phone.command("set_pairing_mode", ["phone": "anna", "mode": "reject"])
        let frames = Paths.temporaryDirectory("unencrypted-frames")
        let unit = try RunningHeadUnit(hci: phone.hciSpec, extra: ["--display", "png:\(frames.path)"], name: "unencrypted")
        defer { unit.stop() }
        #expect(phone.waitFor("pairing_failed", timeout: 30) != nil)
        // It pushes ANCS and AMS notifications anyway, unasked, with text to show.
        var sent = 0
        for i in 0..<5 {
            let reply = try phone.command("push_unsolicited", ["phone": "anna", "uid": 0x5EC0 + i,
                                                               "title": "In 400 m", "message": "Unencrypted turn right"])
            sent += reply["sent"] as? Int ?? 0
            Thread.sleep(forTimeInterval: 0.3)
        }
        try phone.command("post_notification", ["phone": "anna", "app": "com.google.Maps", "category": "location",
                                                "title": "In 300 m", "message": "Unencrypted turn left"])
        Thread.sleep(forTimeInterval: 1.5)
        #expect(sent >= 3, "the phone could not push: \(sent)")
        let events = unit.allEvents
        #expect(!events.contains { $0["event"] as? String == "encrypted" })
        for name in ["notification", "now_playing"] {
            #expect(!events.contains { $0["event"] as? String == name }, "\(name) from an unencrypted link")
        }
        unit.type("notifications")
        #expect(unit.console.next(timeout: 5) { $0.hasPrefix("no notifications shown") } != nil)
        unit.type("status")
        #expect(unit.console.next(timeout: 5) { $0.hasPrefix("state files:") } != nil)
        let everything = unit.console.all + unit.stderr.all
        #expect(!everything.contains { $0.contains("Unencrypted turn") || $0.contains("In 400 m") })
        #expect(unit.process.isRunning)
    }

    @Test func notificationTextStaysOutOfTheLogsAndStateIsPrivate() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        // The default log level: no --log-level.
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: "log-privacy")
        defer { unit.stop() }
        try pair(unit, phone)
        try phone.command("post_notification", ["phone": "anna", "app": "com.google.Maps", "category": "location",
                                                "title": "In 650 m", "message": "Turn left onto Lombard Street"])
        #expect(unit.waitFor("notification", timeout: 20) { $0["action"] as? String == "shown" } != nil)
        try phone.command("run_scenario", ["phone": "anna", "scenario": "chat_and_mail", "wait": true])
        #expect(unit.waitFor("notification", timeout: 20) { $0["action"] as? String == "dropped" } != nil)
        #expect(unit.waitFor("notification", timeout: 20) { $0["action"] as? String == "dropped" } != nil)
        try phone.command("run_scenario", ["phone": "anna", "scenario": "maps", "interval": 0.2, "wait": true])
        Thread.sleep(forTimeInterval: 1)
        unit.stop()

        let shownText = ["In 650 m", "Turn left onto Lombard Street", "Turn left onto Market Street", "Your destination is on the right"]
        let privateText = ["Alex", "Are we still on for tonight", "4711", "Bank of Example", "Your monthly statement",
                           "Your balance is"]
        let log = unit.stderr.all
        #expect(log.count > 10, "too little logged to judge: \(log)")
        for text in shownText + privateText {
            #expect(!log.contains { $0.contains(text) }, "'\(text)' in the log at the default level")
        }
        // The event log carries shown notifications (the automation contract) but nothing of a dropped one.
        let events = try String(contentsOf: unit.eventsURL, encoding: .utf8)
        for text in privateText { #expect(!events.contains(text), "'\(text)' in the event log") }

        // State: the directory and every file in it, the owner's alone.
        let attributes = try FileManager.default.attributesOfItem(atPath: unit.stateDirectory.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
        let names = try FileManager.default.contentsOfDirectory(atPath: unit.stateDirectory.path)
        #expect(Set(names).isSuperset(of: ["client-name", "server-name", "local-irk", "app-names"]), "\(names)")
        #expect(names.contains { $0.hasPrefix("bond-") })
        for name in names {
            let mode = try FileManager.default.attributesOfItem(atPath: unit.stateDirectory.appendingPathComponent(name).path)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600, "\(name) has mode \(String(mode?.intValue ?? 0, radix: 8))")
        }
    }
}
