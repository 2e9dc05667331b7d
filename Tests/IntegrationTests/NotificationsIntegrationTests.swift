import Foundation
import Testing

/// ANCS and AMS end to end: the simulated iPhone posts Maps turn-by-turn
/// updates, chat and mail, and plays music; the head unit shows what it
/// should, drops the rest without asking for its text, and says so.
@Suite(.serialized) struct NotificationsIntegrationTests {
    /// A head unit paired (passkey typed) and running an ANCS session with phone `anna`.
    func pairedUnit(_ phone: PhoneSimulator, name: String, display: String? = nil) throws -> RunningHeadUnit {
        let unit = try RunningHeadUnit(hci: phone.hciSpec, extra: display.map { ["--display", $0] } ?? [], name: name)
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(phone.waitFor("passkey_requested", timeout: 30) != nil)
        try phone.command("type_passkey", ["phone": "anna", "digits": passkey])
        #expect(unit.waitFor("encrypted", timeout: 30) != nil)
        #expect(phone.waitFor("ancs_session", timeout: 30) { $0["state"] as? String == "started" } != nil)
        return unit
    }

    func notification(_ unit: RunningHeadUnit, _ action: String, title: String? = nil) -> [String: Any]? {
        unit.waitFor("notification", timeout: 20) { e in
            e["action"] as? String == action && (title == nil || e["title"] as? String == title)
        }
    }

    @Test func mapsInstructionAppearsUpdatesAndDisappears() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let frames = Paths.temporaryDirectory("maps-frames")
        let unit = try pairedUnit(phone, name: "maps", display: "png:\(frames.path)")
        defer { unit.stop() }
        let posted = try phone.command("post_notification", ["phone": "anna", "app": "com.google.Maps", "category": "location",
                                                              "title": "In 500 m", "message": "Turn left onto Market Street"])
        let id = try #require((posted["notification"] as? [String: Any])?["id"])
        let shown = try #require(notification(unit, "shown", title: "In 500 m"))
        #expect(shown["kind"] as? String == "navigation" && shown["category"] as? String == "Location")
        #expect(shown["message"] as? String == "Turn left onto Market Street")
        try phone.command("modify_notification", ["phone": "anna", "notification": id, "title": "In 200 m"])
        #expect(notification(unit, "updated", title: "In 200 m")?["message"] as? String == "Turn left onto Market Street")
        #expect(unit.waitFor("frame", timeout: 10) != nil)
        try phone.command("remove_notification", ["phone": "anna", "notification": id])
        #expect(notification(unit, "removed") != nil)
        #expect(FileManager.default.fileExists(atPath: frames.appendingPathComponent("latest.png").path))
    }

    @Test func chatAndMailAreDroppedWithoutTheirTextEverBeingRequested() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let unit = try pairedUnit(phone, name: "privacy")
        defer { unit.stop() }
        try phone.command("run_scenario", ["phone": "anna", "scenario": "chat_and_mail", "wait": true])
        let chat = try #require(notification(unit, "dropped"))
        let mail = try #require(notification(unit, "dropped"))
        #expect(chat["app"] as? String == "com.facebook.Messenger" && chat["kind"] as? String == "other")
        #expect(mail["app"] as? String == "com.apple.mobilemail")
        #expect(chat["title"] is NSNull && chat["message"] is NSNull)
        // What the phone was asked: only the AppIdentifier of either.
        let requests = phone.events.all.compactMap(PhoneSimulator.parse).filter { $0["event"] as? String == "ancs_request" }
        let forDropped = requests.filter { ["com.facebook.Messenger", "com.apple.mobilemail"].contains($0["app"] as? String ?? "") }
        #expect(!forDropped.isEmpty)
        for request in forDropped {
            #expect(request["attributes"] as? [String] == ["app_identifier"], "text of a dropped notification requested: \(request)")
        }
    }

    @Test func nowPlayingFollowsTheMusic() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let unit = try pairedUnit(phone, name: "music")
        defer { unit.stop() }
        try phone.command("play_track", ["phone": "anna", "title": "Bohemian Rhapsody", "artist": "Queen",
                                         "album": "A Night at the Opera", "duration": 355.0, "player": "Music"])
        let first = unit.waitFor("now_playing", timeout: 20) { $0["title"] as? String == "Bohemian Rhapsody" }
        #expect(first?["artist"] as? String == "Queen" && first?["state"] as? String == "playing")
        #expect(first?["duration_s"] as? Double == 355.0)
        try phone.command("play_track", ["phone": "anna", "title": "Under Pressure", "artist": "Queen & David Bowie",
                                         "album": "Hot Space", "duration": 248.0, "player": "Music"])
        #expect(unit.waitFor("now_playing", timeout: 20) { $0["title"] as? String == "Under Pressure" } != nil)
        try phone.command("set_playback", ["phone": "anna", "state": "paused", "elapsed": 61.5])
        let paused = unit.waitFor("now_playing", timeout: 20) { $0["state"] as? String == "paused" }
        #expect(paused?["elapsed_s"] as? Double == 61.5)
    }

    @Test func silentlyDroppedSubscriptionsAreRecoveredByTheLivenessProbe() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let config = Paths.temporaryDirectory("probe").appendingPathComponent("headunit.conf")
        try "[bluetooth]\nprobe-interval = 30s\n".write(to: config, atomically: true, encoding: .utf8)
        let unit = try RunningHeadUnit(hci: phone.hciSpec, extra: ["--config", config.path], name: "probe")
        defer { unit.stop() }
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(phone.waitFor("passkey_requested", timeout: 30) != nil)
        try phone.command("type_passkey", ["phone": "anna", "digits": passkey])
        #expect(phone.waitFor("ancs_session", timeout: 30) { $0["state"] as? String == "started" } != nil)
        // The session's opening probe is answered (0xA2: no such notification).
        #expect(phone.waitFor("ancs_request", timeout: 10) { $0["uid"] as? Int == 0xFFFF_FFFF && $0["result"] as? String == "0xA2" } != nil)
        // iOS forgets the subscriptions while the link stays up; the
        // instruction posted now never reaches the head unit...
        try phone.command("drop_subscriptions", ["phone": "anna"])
        try phone.command("post_notification", ["phone": "anna", "app": "com.google.Maps", "category": "location",
                                                "title": "In 300 m", "message": "Turn right onto 3rd Street"])
        #expect(unit.waitFor("notification", timeout: 5) == nil)
        // ...until the probe goes unanswered and the head unit subscribes again.
        let shown = unit.waitFor("notification", timeout: 60) { $0["action"] as? String == "shown" }
        #expect(shown?["title"] as? String == "In 300 m")
        let subscriptions = phone.events.all.compactMap(PhoneSimulator.parse).filter {
            $0["event"] as? String == "ancs_subscribed" && $0["characteristic"] as? String == "notification_source"
        }
        #expect(subscriptions.count >= 2, "the Notification Source was not subscribed again")
    }

    @Test func sharingOffOnThePhoneIsShownAsAHint() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        try phone.command("set_sharing", ["phone": "anna", "on": false])
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: "sharing-off")
        defer { unit.stop() }
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(phone.waitFor("passkey_requested", timeout: 30) != nil)
        try phone.command("type_passkey", ["phone": "anna", "digits": passkey])
        #expect(unit.waitFor("error", timeout: 60) { $0["what"] as? String == "ancs" } != nil)
    }
}
