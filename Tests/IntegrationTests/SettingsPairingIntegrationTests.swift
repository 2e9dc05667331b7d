import Foundation
import Testing

/// Pairing a stock iPhone from Settings → Bluetooth (issue 15), end to end:
/// the `headunit run` binary with no configuration file (`phones = both`)
/// is the accessory, the simulated iPhone without the app is the central.
/// The passkey is read from the head unit's `passkey` event and typed into
/// the phone, as a driver would.
@Suite(.serialized) struct SettingsPairingIntegrationTests {
    /// A stock iPhone: no app, so it does not advertise; ANCS and AMS appear
    /// in its database only once it holds a bond, as on iOS.
    func addStockPhone(_ phone: PhoneSimulator, _ name: String, prompt: String = "allow") throws {
        let reply = try phone.command("add_phone", ["name": name, "server_app": false, "apple_services": "after_bonding",
                                                    "notification_prompt": prompt])
        #expect(reply["ok"] as? Bool == true, "\(reply)")
    }

    /// Settings → Bluetooth opens on `name`'s phone; the head unit is listed.
    func listedHeadUnit(_ phone: PhoneSimulator, on name: String) throws -> String {
        let listed = try phone.command("list_accessories", ["phone": name, "wait": 15], timeout: 20)
        let accessories = listed["accessories"] as? [[String: Any]] ?? []
        return try #require(accessories.first?["name"] as? String, "the head unit is not listed in Settings: \(listed)")
    }

    /// The user taps the head unit and types the passkey it shows; the head
    /// unit reports the pairing and the encrypted bonded link.
    @discardableResult
    func pairFromSettings(_ phone: PhoneSimulator, _ unit: RunningHeadUnit, as name: String) throws -> String {
        let accessory = try listedHeadUnit(phone, on: name)
        let tapped = try phone.command("tap_accessory", ["phone": name, "name": accessory, "timeout": 10], timeout: 20)
        #expect(tapped["ok"] as? Bool == true, "\(tapped)")
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(passkey.count == 6 && passkey.allSatisfy(\.isNumber))
        #expect(phone.waitFor("passkey_requested", timeout: 30) { $0["phone"] as? String == name } != nil)
        let typed = try phone.command("type_passkey", ["phone": name, "digits": passkey])
        #expect(typed["ok"] as? Bool == true, "the phone was not waiting for a passkey: \(typed)")
        let paired = try #require(unit.waitFor("paired", timeout: 30))
        let server = try #require(paired["server"] as? String)
        #expect(server.hasPrefix("settings "), "not paired as a Settings phone: \(server)")
        #expect(paired["method"] as? String == "passkey" && paired["mitm"] as? Bool == true)
        #expect(paired["secure_connections"] as? Bool == true)
        #expect(unit.waitFor("encrypted", timeout: 30) { $0["server"] as? String == server }?["bonded"] as? Bool == true)
        return server
    }

    /// A head unit with no configuration and Anna's stock iPhone paired to
    /// it from Settings, connected. Stop both when done.
    func pairedStockPhone(_ name: String, prompt: String = "allow") throws -> (PhoneSimulator, RunningHeadUnit, server: String) {
        let phone = try PhoneSimulator(name: name)
        try addStockPhone(phone, "anna", prompt: prompt)
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: name)
        #expect(accessory(unit, "pairing") != nil, "no configuration: the head unit should open pairing mode as an accessory")
        let server = try pairFromSettings(phone, unit, as: "anna")
        #expect(accessory(unit, "connected")?["phone"] as? String == String(server.dropFirst("settings ".count)))
        return (phone, unit, server)
    }

    /// The latest `accessory` event once it says `state` (it may have been
    /// written before the event a test waited for last).
    func accessory(_ unit: RunningHeadUnit, _ state: String, timeout: TimeInterval = 30) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let last = unit.allEvents.last(where: { $0["event"] as? String == "accessory" }), last["state"] as? String == state {
                return last
            }
            usleep(100_000)
        } while Date() < deadline
        print("no accessory state \(state) within \(timeout) s")
        return nil
    }

    func count(_ unit: RunningHeadUnit, _ event: String) -> Int {
        unit.allEvents.filter { $0["event"] as? String == event }.count
    }

    func phoneState(_ phone: PhoneSimulator, _ name: String) throws -> [String: Any] {
        try phone.command("state", ["phone": name])
    }

    @Test func aStockIPhonePairsFromSettingsAndItsNotificationsAndMusicReachTheHeadUnit() throws {
        let (phone, unit, _) = try pairedStockPhone("settings-phone", prompt: "ask")
        defer { unit.stop(); phone.stop() }
        // "Allow "NavigationNotifier" to receive your notifications?" stays
        // open a while: the head unit is refused until the driver says yes.
        #expect(phone.waitFor("notification_prompt", timeout: 30) { $0["state"] as? String == "pending" } != nil)
        let refused = unit.waitFor("error", timeout: 30) { $0["what"] as? String == "ancs" }
        #expect(refused?["detail"] as? String == "notifications not allowed for this head unit on the iPhone")
        let answered = Date()
        let allowed = try phone.command("allow_notifications", ["phone": "anna"])
        #expect(allowed["ok"] as? Bool == true, "\(allowed)")

        try phone.command("post_notification", ["phone": "anna", "app": "com.apple.Maps", "category": "location",
                                                "title": "In 300 m", "message": "Turn left onto Main Street"])
        // The head unit tries again soon after such a refusal, not a minute later.
        let shown = unit.waitFor("notification", timeout: 10) { $0["action"] as? String == "shown" }
        print("first notification shown \(Date().timeIntervalSince(answered)) s after the driver allowed notifications")
        #expect(shown?["title"] as? String == "In 300 m" && shown?["kind"] as? String == "navigation")
        try phone.command("post_notification", ["phone": "anna", "app": "com.facebook.Messenger", "category": "social",
                                                "title": "Bob", "message": "Are you there yet?"])
        let dropped = unit.waitFor("notification", timeout: 20) { $0["action"] as? String == "dropped" }
        #expect(dropped?["app"] as? String == "com.facebook.Messenger")
        #expect(dropped?["title"] is NSNull && dropped?["message"] is NSNull, "a dropped chat carries its text: \(String(describing: dropped))")
        let asked = phone.events.all.compactMap(PhoneSimulator.parse).filter {
            $0["event"] as? String == "ancs_request" && $0["app"] as? String == "com.facebook.Messenger"
        }
        for request in asked {
            #expect(request["attributes"] as? [String] == ["app_identifier"], "the chat's text was asked for: \(request)")
        }

        try phone.command("play_track", ["phone": "anna", "title": "Bohemian Rhapsody", "artist": "Queen",
                                         "album": "A Night at the Opera", "duration": 355.0, "player": "Music"])
        let playing = unit.waitFor("now_playing", timeout: 20) { $0["title"] as? String == "Bohemian Rhapsody" }
        #expect(playing?["artist"] as? String == "Queen" && playing?["state"] as? String == "playing")

        // The trace of all this decodes cleanly: SMP as responder, ATT both ways.
        unit.stop()
        let detail = try TShark.decode(unit.traceURL, verbose: true)
        #expect(detail.contains("Pairing Request") && detail.contains("Pairing Public Key") && detail.contains("Pairing DHKey Check"))
        #expect(detail.contains("LE Long Term Key Request"), "the phone's controller never asked for the key")
        #expect(!detail.lowercased().contains("malformed"), "tshark reports malformed packets")
    }

    @Test func theBondedPhoneComesBackFromANewAddressWithoutANewPasskey() throws {
        let (phone, unit, server) = try pairedStockPhone("settings-reconnect")
        defer { unit.stop(); phone.stop() }
        // The car drives off without the phone: the link is lost, not closed.
        try phone.command("out_of_range", ["phone": "anna"])
        #expect(accessory(unit, "bonded") != nil, "the head unit did not go back to waiting for its phone")
        #expect(phone.waitFor("disconnected", timeout: 30) { $0["phone"] as? String == "anna" } != nil)
        let rotated = try phone.command("rotate_address", ["phone": "anna"])
        #expect(rotated["ok"] as? Bool == true, "\(rotated)")
        try phone.command("in_range", ["phone": "anna"])
        #expect(phone.waitFor("reconnecting", timeout: 30) != nil, "the phone did not reconnect by itself")
        let again = unit.waitFor("encrypted", timeout: 30) { $0["server"] as? String == server }
        #expect(again?["bonded"] as? Bool == true)
        #expect(accessory(unit, "connected") != nil)
        let state = try phoneState(phone, "anna")
        #expect(state["address"] as? String != rotated["old_address"] as? String)
        #expect(count(unit, "passkey") == 1 && count(unit, "paired") == 1, "the bond was not used: paired again")
    }

    @Test func anotherPhoneMayPairOnlyInPairingMode() throws {
        let (phone, unit, anna) = try pairedStockPhone("settings-stranger")
        defer { unit.stop(); phone.stop() }
        // Anna leaves; Bob, never paired, finds the head unit in Settings.
        try phone.command("power_off", ["phone": "anna"])
        #expect(accessory(unit, "bonded") != nil)
        try addStockPhone(phone, "bob")
        // Bob taps it: his phone connects, and the head unit sends it away.
        let name = try listedHeadUnit(phone, on: "bob")
        let tapped = try phone.command("tap_accessory", ["phone": "bob", "name": name, "timeout": 10], timeout: 20)
        #expect(tapped["ok"] as? Bool == true, "Bob's tap did not reach the head unit: \(tapped)")
        let refused = unit.waitFor("error", timeout: 10) { $0["what"] as? String == "accessory" }
        #expect(refused?["detail"] as? String == "an unknown phone tried to connect outside pairing mode")
        #expect(phone.waitFor("disconnected", timeout: 10) { $0["phone"] as? String == "bob" } != nil, "Bob's link was not ended")
        #expect(count(unit, "passkey") == 1, "a passkey was shown to a stranger outside pairing mode")
        #expect(count(unit, "paired") == 1)
        #expect(try #require(phoneState(phone, "bob")["accessory_bonds"] as? [Any]).isEmpty, "Bob holds a bond")
        // The driver opens pairing mode from the console; now Bob pairs.
        unit.type("pair")
        #expect(accessory(unit, "pairing")?["pairing_window_s"] as? Int == 120)
        let bob = try pairFromSettings(phone, unit, as: "bob")
        #expect(bob != anna)
        #expect(accessory(unit, "connected") != nil)
    }

    /// Forget This Device, then the owner taps the head unit again: it
    /// pairs with nothing done on the head unit, and its bond is replaced
    /// once that pairing completes (pairing mode never opens).
    @Test func aPhoneThatForgotTheHeadUnitPairsAgainAndItsBondIsReplaced() throws {
        let (phone, unit, first) = try pairedStockPhone("settings-forgot")
        defer { unit.stop(); phone.stop() }
        // Settings → Bluetooth → (i) → Forget This Device: the link ends.
        let forgot = try phone.command("forget_bond", ["phone": "anna"])
        #expect(forgot["ok"] as? Bool == true, "\(forgot)")
        #expect(accessory(unit, "bonded") != nil)
        // Then the owner taps the head unit again.
        let name = try listedHeadUnit(phone, on: "anna")
        let mark = unit.allEvents.count
        try phone.command("tap_accessory", ["phone": "anna", "name": name, "timeout": 10], timeout: 20)
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(phone.waitFor("passkey_requested", timeout: 30) != nil)
        try phone.command("type_passkey", ["phone": "anna", "digits": passkey])
        let again = unit.waitFor("encrypted", timeout: 30) { ($0["server"] as? String)?.hasPrefix("settings ") == true }
        #expect(again?["bonded"] as? Bool == true)
        #expect(count(unit, "paired") == 2)
        #expect(unit.stderr.find(timeout: 5) { $0.contains("paired again; its bond is replaced") } != nil,
                "the log does not say the bond was replaced")
        #expect(!unit.allEvents.dropFirst(mark).contains { $0["event"] as? String == "accessory" && $0["state"] as? String == "pairing" },
                "pairing mode opened")
        let bonds = (try? FileManager.default.contentsOfDirectory(atPath: unit.stateDirectory.path))?
            .filter { $0.hasPrefix("bond-") && !$0.hasSuffix(".tmp") } ?? []
        #expect(bonds.count == 1, "the forgotten bond is still kept: \(bonds), first \(first)")
    }

    @Test func withBothWaysTheFirstBondedPhoneIsThePhoneAndTheOtherWaits() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "nina"], name: "settings-both")
        defer { phone.stop() }
        try addStockPhone(phone, "sam")
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: "settings-both")
        defer { unit.stop() }
        // Nina's app is found and paired with the passkey first.
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(phone.waitFor("passkey_requested", timeout: 30) { $0["phone"] as? String == "nina" } != nil)
        // Meanwhile Sam opens Settings → Bluetooth: the head unit still advertises, and is listed.
        let listed = try listedHeadUnit(phone, on: "sam")
        try phone.command("type_passkey", ["phone": "nina", "digits": passkey])
        let nina = unit.waitFor("encrypted", timeout: 30)
        #expect(nina?["bonded"] as? Bool == true)
        #expect((nina?["server"] as? String)?.hasPrefix("settings ") == false, "\(String(describing: nina))")
        #expect(accessory(unit, "standby") != nil, "the accessory role did not stand by for the app's phone")
        // Sam taps the head unit while Nina is connected: it advertises no
        // more, so his phone finds nobody to connect to, and is not taken.
        let tapped = try phone.command("tap_accessory", ["phone": "sam", "name": listed, "timeout": 5], timeout: 15)
        #expect(tapped["ok"] as? Bool == false, "Sam's phone connected while Nina's is the phone: \(tapped)")
        Thread.sleep(forTimeInterval: 2)
        #expect(count(unit, "passkey") == 1 && count(unit, "paired") == 1, "Sam was taken while Nina is the phone")
        #expect(try #require(phoneState(phone, "sam")["accessory_bonds"] as? [Any]).isEmpty, "Sam holds a bond")
        #expect(unit.allEvents.last { $0["event"] as? String == "accessory" }?["state"] as? String == "standby")
    }

    @Test func withBothWaysASettingsPhoneIsThePhoneAndAnAppPhoneIsNotConnectedTo() throws {
        let (phone, unit, anna) = try pairedStockPhone("settings-first")
        defer { unit.stop(); phone.stop() }
        // Nina opens the NavigationNotifier app in the car while Anna's phone is the phone.
        let added = try phone.command("add_phone", ["name": "nina", "server_name": "Nina-iPhone"])
        #expect(added["ok"] as? Bool == true, "\(added)")
        Thread.sleep(forTimeInterval: 5)
        let ninaConnected = phone.events.all.compactMap(PhoneSimulator.parse).contains {
            $0["event"] as? String == "connected" && $0["phone"] as? String == "nina"
        }
        #expect(!ninaConnected, "the head unit connected to an app phone while a Settings phone is the phone")
        #expect(count(unit, "passkey") == 1 && count(unit, "paired") == 1)
        #expect(unit.allEvents.last { $0["event"] as? String == "encrypted" }?["server"] as? String == anna)
    }
}
