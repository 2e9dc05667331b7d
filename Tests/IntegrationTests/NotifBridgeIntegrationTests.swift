import Foundation
import Testing

/// The NotifBridge receiver in the real binary against the simulated
/// iPhone's NotifBridge sender (Tests/Phone, its own X-Wing and HPKE): a
/// stock iPhone (no NavigationNotifier app) finds the head unit in the
/// accessory picker by the service UUID and the `NotifBdg` name, pairs with
/// the passkey on the head unit's screen, keys, and forwards notifications
/// (docs/NOTIFBRIDGE.md).
@Suite(.serialized) struct NotifBridgeIntegrationTests {
    /// A head unit and a phone linked and keyed through NotifBridge.
    struct Rig {
        let phone: PhoneSimulator
        var unit: RunningHeadUnit
        /// The head unit's address as the picker found it.
        let address: String

        func stop() {
            unit.stop()
            phone.stop()
        }

        /// A sender command; its reply, which must be `ok`.
        @discardableResult
        func send(_ command: String, _ fields: [String: Any] = [:], timeout: TimeInterval = 60) throws -> [String: Any] {
            let reply = try phone.command(command, (["phone": "anna"] as [String: Any]).merging(fields) { $1 }, timeout: timeout)
            try #require(reply["ok"] as? Bool == true, "\(command): \(reply)")
            return reply
        }

        /// Posts a notification and returns the reply (`received`: its receipt came).
        func post(_ app: String, title: String, body: String) throws -> [String: Any] {
            try send("notifbridge_post", ["app": app, "title": title, "body": body])
        }

        /// The head unit's `notification` events with `title`.
        func notifications(titled title: String) -> [[String: Any]] {
            unit.allEvents.filter { $0["event"] as? String == "notification" && $0["title"] as? String == title }
        }
    }

    /// Picker, passkey pairing and (unless `keyed` is false) prepare + activate.
    func linked(keyed: Bool = true, name: String, connect options: [String: Any] = [:]) throws -> Rig {
        let phone = try PhoneSimulator(name: "\(name)-phone")
        try phone.command("add_phone", ["phone": "anna", "server_app": false])
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: name)
        // The connection waits for the passkey the driver types: in the background.
        try phone.command("notifbridge_connect", (["phone": "anna", "scan_timeout": 20, "pair": true, "wait": false] as [String: Any])
            .merging(options) { $1 })
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(phone.waitFor("passkey_requested", timeout: 30) != nil)
        try phone.command("type_passkey", ["phone": "anna", "digits": passkey])
        let connected = try #require(phone.waitFor("notifbridge_done", timeout: 40) { $0["cmd"] as? String == "notifbridge_connect" })
        try #require(connected["ok"] as? Bool == true, "connect: \(connected)")
        #expect((connected["name"] as? String)?.hasPrefix("NotifBdg ") == true, "picked \(connected["name"] ?? "nothing")")
        let rig = Rig(phone: phone, unit: unit, address: try #require(connected["address"] as? String))
        if keyed { try rig.send("notifbridge_keys", ["identifier": "HEAD-UNIT-1"]) }
        return rig
    }

    @Test func mapsAndMusicAreShownAndAChatIsDropped() throws {
        let rig = try linked(name: "notifbridge-shown")
        defer { rig.stop() }
        let maps = try rig.post("com.google.Maps", title: "In 500 m", body: "Turn left onto Main St")
        #expect(maps["received"] as? Bool == true)
        let shown = rig.unit.waitFor("notification", timeout: 20) { $0["title"] as? String == "In 500 m" }
        #expect(shown?["action"] as? String == "shown")
        #expect(shown?["kind"] as? String == "navigation")
        #expect(shown?["via"] as? String == "notifbridge")
        #expect(shown?["maneuver"] as? String == "left")
        // The head unit tells the phone it was shown.
        let eventID = try #require(maps["event_id"] as? String)
        let displayed = try rig.send("notifbridge_wait_displayed", ["event_id": eventID, "timeout": 20])
        #expect(displayed["displayed"] != nil)

        let music = try rig.post("com.apple.Music", title: "Blue in Green", body: "Miles Davis")
        #expect(music["received"] as? Bool == true)
        let song = rig.unit.waitFor("notification", timeout: 20) { $0["title"] as? String == "Blue in Green" }
        #expect(song?["kind"] as? String == "music" && song?["via"] as? String == "notifbridge")

        // A chat: acknowledged (the phone must not resend it), dropped, its text nowhere.
        let chat = try rig.post("net.whatsapp.WhatsApp", title: "Bob", body: "the door code is 4711")
        #expect(chat["received"] as? Bool == true)
        let dropped = rig.unit.waitFor("notification", timeout: 20) { $0["app"] as? String == "net.whatsapp.WhatsApp" }
        #expect(dropped?["action"] as? String == "dropped")
        #expect(dropped?["title"] is NSNull || dropped?["title"] == nil)
        rig.unit.type("notifications")
        #expect(rig.unit.console.next(timeout: 5) { $0.contains("In 500 m") } != nil)
        let everything = rig.unit.console.all + rig.unit.stderr.all
            + rig.unit.allEvents.map { String(describing: $0) }
        #expect(!everything.contains { $0.contains("4711") || $0.contains("door code") })
    }

    /// The Done-when case of the NotifBridge part: Google Maps with one
    /// action of every type, every member written as the app's JSONEncoder
    /// writes it (the actions' types as enum objects), is shown.
    @Test func aMapsNotificationWithActionsAsTheAppEncodesItIsShown() throws {
        let rig = try linked(name: "notifbridge-actions")
        defer { rig.stop() }
        let actions: [[String: Any]] = [
            ["id": "end-route", "title": "End route", "type": "background"],
            ["id": "reply", "title": "Reply", "type": "textInput", "placeholder": "Message"],
            ["id": "close", "title": "Close", "type": "dismiss"],
            ["id": "later", "title": "Later", "type": "unknown", "code": 255],
        ]
        let maps = try rig.send("notifbridge_post", ["app": "com.google.Maps", "title": "In 300 m", "body": "Turn right onto Elm St",
                                                     "source_name": "Google Maps", "attributes": 2, "actions": actions])
        #expect(maps["received"] as? Bool == true)
        let shown = rig.unit.waitFor("notification", timeout: 20) { $0["title"] as? String == "In 300 m" }
        #expect(shown?["action"] as? String == "shown")
        #expect(shown?["via"] as? String == "notifbridge")
        #expect(shown?["maneuver"] as? String == "right")
        let eventID = try #require(maps["event_id"] as? String)
        #expect(try rig.send("notifbridge_wait_displayed", ["event_id": eventID, "timeout": 20])["displayed"] != nil)
    }

    /// The app's writer that relays no receipts sends frames plain (no
    /// NBW1, no acks): a burst of Write Without Response values.
    @Test func aFrameWrittenWithoutTheWrapperIsShown() throws {
        let rig = try linked(name: "notifbridge-plain", connect: ["relay_receipts": false])
        defer { rig.stop() }
        let maps = try rig.post("com.google.Maps", title: "In 800 m", body: "Keep left")
        #expect(maps["received"] as? Bool == true)
        let shown = rig.unit.waitFor("notification", timeout: 20) { $0["title"] as? String == "In 800 m" }
        #expect(shown?["action"] as? String == "shown")
        #expect(shown?["via"] as? String == "notifbridge")
    }

    @Test func aRestartBetweenPrepareAndActivateKeepsThePreparedKey() throws {
        var rig = try linked(keyed: false, name: "notifbridge-restart")
        defer { rig.stop() }
        try rig.send("notifbridge_prepare", ["identifier": "HEAD-UNIT-2"])
        let state = rig.unit.stateDirectory
        rig.unit.stop()
        let keyFile = state.appendingPathComponent("notifbridge-keys")
        let mode = try FileManager.default.attributesOfItem(atPath: keyFile.path)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600, "the key file is the owner's only")
        rig.unit = try RunningHeadUnit(hci: rig.phone.hciSpec, stateDirectory: state, name: "notifbridge-restart-2")
        #expect(rig.unit.stderr.next(timeout: 10) { $0.contains("keys loaded: 0 generation(s), 1 prepared") } != nil)
        // The bonded phone comes back by itself; the app takes that link and activates what it prepared.
        #expect(rig.unit.waitFor("encrypted", timeout: 30) != nil)
        let peers = try rig.send("state")["peers"] as? [String] ?? []
        #expect(peers == [rig.address], "back to the head unit the picker found")
        try rig.send("notifbridge_connect", ["address": rig.address, "timeout": 20], timeout: 60)
        try rig.send("notifbridge_activate")
        let maps = try rig.post("com.apple.Maps", title: "In 200 m", body: "Turn right")
        #expect(maps["received"] as? Bool == true)
        #expect(rig.unit.waitFor("notification", timeout: 20) { $0["title"] as? String == "In 200 m" }?["via"] as? String == "notifbridge")
    }

    @Test func aSettingsPairedPhoneForwardsOnTheSameLink() throws {
        let phone = try PhoneSimulator(name: "notifbridge-settings-phone")
        try phone.command("add_phone", ["phone": "anna", "server_app": false])
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: "notifbridge-settings")
        // Settings → Bluetooth lists the head unit by the name it announces; the user taps that name.
        let name = try #require(unit.waitFor("accessory", timeout: 30)?["name"] as? String)
        _ = try phone.command("list_accessories", ["phone": "anna", "wait": 15, "name": name], timeout: 30)
        let tapped = try phone.command("tap_accessory", ["phone": "anna", "name": name, "timeout": 10], timeout: 30)
        let address = try #require(tapped["peer"] as? String, "\(tapped)")
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        try phone.command("type_passkey", ["phone": "anna", "digits": passkey])
        #expect(unit.waitFor("encrypted", timeout: 30) != nil)
        let rig = Rig(phone: phone, unit: unit, address: address)
        defer { rig.stop() }
        // The NotifBridge app takes the link Settings made: no second connection, no second pairing.
        try rig.send("notifbridge_connect", ["address": address, "timeout": 20])
        try rig.send("notifbridge_keys", ["identifier": "HEAD-UNIT-1"])
        #expect(try rig.post("com.google.Maps", title: "In 400 m", body: "Turn right")["received"] as? Bool == true)
        let shown = unit.waitFor("notification", timeout: 20) { $0["title"] as? String == "In 400 m" }
        #expect(shown?["via"] as? String == "notifbridge" && shown?["kind"] as? String == "navigation")
        #expect(unit.allEvents.filter { $0["event"] as? String == "passkey" }.count == 1)
    }

    @Test func aDuplicateIsAcknowledgedAndShownOnce() throws {
        let rig = try linked(name: "notifbridge-duplicate")
        defer { rig.stop() }
        _ = try rig.post("com.google.Maps", title: "In 300 m", body: "Keep right")
        #expect(rig.unit.waitFor("notification", timeout: 20) { $0["title"] as? String == "In 300 m" } != nil)
        let again = try rig.send("notifbridge_duplicate", ["timeout": 20])
        #expect(again["received"] as? Bool == true, "a duplicate is acknowledged again")
        // A later notification proves the duplicate was handled before it.
        _ = try rig.post("com.google.Maps", title: "In 100 m", body: "Keep right")
        #expect(rig.unit.waitFor("notification", timeout: 20) { $0["title"] as? String == "In 100 m" } != nil)
        #expect(rig.notifications(titled: "In 300 m").count == 1, "\(rig.notifications(titled: "In 300 m"))")
    }

    @Test func anEnvelopeBeforeItsKeyWaitsThenShows() throws {
        let rig = try linked(name: "notifbridge-before-key")
        defer { rig.stop() }
        let reply = try rig.send("notifbridge_before_key", ["app": "com.google.Maps", "title": "In 800 m",
                                                            "body": "Turn left", "timeout": 20])
        #expect(reply["received_before_activate"] as? Bool == false)
        #expect(reply["received"] as? Bool == true)
        #expect(rig.unit.waitFor("notification", timeout: 20) { $0["title"] as? String == "In 800 m" }?["action"] as? String == "shown")
    }

    @Test func aTamperedCiphertextIsRefusedWithoutHarm() throws {
        let rig = try linked(name: "notifbridge-tamper")
        defer { rig.stop() }
        let reply = try rig.send("notifbridge_tamper", ["app": "com.google.Maps", "title": "In 900 m",
                                                        "body": "Forged turn", "timeout": 5])
        #expect(reply["received"] as? Bool == false, "no receipt for what does not authenticate")
        // The link goes on: the next honest one is shown, the forged one never was.
        _ = try rig.post("com.google.Maps", title: "In 700 m", body: "Turn left")
        #expect(rig.unit.waitFor("notification", timeout: 20) { $0["title"] as? String == "In 700 m" } != nil)
        #expect(rig.notifications(titled: "In 900 m").isEmpty)
        #expect(rig.unit.process.isRunning)
    }
}
