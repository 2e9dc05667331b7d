import Foundation
import Testing

/// One name in iOS's lists (docs/NOTIFBRIDGE.md, "One name in iOS's
/// lists"), end to end: the real binary on a controller with legacy
/// advertising only, with one advertising set and with two; Settings → Bluetooth
/// and NotifBridge's accessory picker watch it for seconds and see one
/// name, the same in both; a person taps it by that name in either list.
@Suite(.serialized) struct OneNameIntegrationTests {
    /// Legacy advertising only, one advertising set, two. Sets are used
    /// only with extended scanning and initiating (docs/ROBUSTNESS.md,
    /// "Controllers as they are"); ExtendedScanningIntegrationTests has
    /// two sets without.
    static let controllers: [[String]] = [[], ["--advertising-sets", "1", "--extended-scanning"],
                                          ["--advertising-sets", "2", "--extended-scanning"]]

    /// A head unit on `controller` and stock iPhones called `phones`, and
    /// the name the head unit says to look for (its `accessory` event). Stop both when done.
    func started(_ test: String, _ controller: [String], phones: [String]) throws -> (PhoneSimulator, RunningHeadUnit, name: String) {
        let label = "one-name-\(test)-sets\(controller.dropFirst().first ?? "0")"
        let phone = try PhoneSimulator(arguments: controller, name: label)
        for name in phones {
            try phone.command("add_phone", ["name": name, "server_app": false, "apple_services": "after_bonding"])
        }
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: label)
        let event = unit.waitFor("accessory", timeout: 30) { $0["state"] as? String == "pairing" }
        return (phone, unit, try #require(event?["name"] as? String, "no accessory event"))
    }

    /// Whether the controller has a set for each payload: then the complete name is listed.
    func twoSets(_ controller: [String]) -> Bool { controller.dropFirst().first == "2" }

    /// The row a person told `name` picks: that name, or a shortened name it begins with.
    func isCalled(_ row: [String: Any], _ name: String) -> Bool {
        guard let listed = row["name"] as? String else { return false }
        return listed == name || (row["shortened"] as? Bool == true && name.hasPrefix(listed))
    }

    @Test(arguments: controllers)
    func bothListsShowOneNameThatHoldsStill(controller: [String]) throws {
        let (phone, unit, name) = try started("lists", controller, phones: ["anna", "bob"])
        defer { unit.stop(); phone.stop() }
        #expect(name.hasPrefix("NotifBdg "), "NotifBridge is on: the picker's marker leads the name")

        // Settings → Bluetooth, open for several seconds.
        let first = try phone.command("list_accessories", ["phone": "anna", "wait": 15, "name": name], timeout: 20)
        let rows = (first["accessories"] as? [[String: Any]] ?? []).filter { isCalled($0, name) }
        try #require(rows.count == 1, "Settings lists the head unit once: \(first)")
        Thread.sleep(forTimeInterval: 4)
        let later = try phone.command("list_accessories", ["phone": "anna"], timeout: 10)
        let row = try #require((later["accessories"] as? [[String: Any]] ?? []).first { isCalled($0, name) })
        let listed = try #require(row["name"] as? String)
        #expect(row["names"] as? [String] == [listed], "the Settings row changed its name: \(row)")
        #expect(twoSets(controller) ? listed == name : name.hasPrefix(listed) && listed.utf8.count == 11)

        // NotifBridge's picker, open for several seconds: the same one name.
        let picker = try phone.command("notifbridge_picker", ["phone": "bob", "seconds": 4], timeout: 20)
        let seen = picker["accessories"] as? [[String: Any]] ?? []
        #expect(seen.count == 1, "the picker lists the head unit once: \(picker)")
        #expect(seen.first?["names"] as? [String] == [listed], "the picker saw: \(picker)")
        #expect(phone.waitFor("accessory_renamed", timeout: 0.1) == nil)
    }

    @Test(arguments: controllers)
    func settingsTapsTheHeadUnitByName(controller: [String]) throws {
        let (phone, unit, name) = try started("settings", controller, phones: ["anna"])
        defer { unit.stop(); phone.stop() }
        _ = try phone.command("list_accessories", ["phone": "anna", "wait": 15, "name": name], timeout: 20)
        let tapped = try phone.command("tap_accessory", ["phone": "anna", "name": name, "timeout": 10], timeout: 20)
        try #require(tapped["ok"] as? Bool == true, "\(tapped)")
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(phone.waitFor("passkey_requested", timeout: 30) != nil)
        try phone.command("type_passkey", ["phone": "anna", "digits": passkey])
        let paired = try #require(unit.waitFor("paired", timeout: 30))
        #expect((paired["server"] as? String)?.hasPrefix("settings ") == true)
    }

    @Test(arguments: controllers)
    func thePickerTapsTheHeadUnitByName(controller: [String]) throws {
        let (phone, unit, name) = try started("picker", controller, phones: ["bob"])
        defer { unit.stop(); phone.stop() }
        try phone.command("notifbridge_connect", ["phone": "bob", "name": name, "scan_timeout": 20, "pair": true, "wait": false])
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(phone.waitFor("passkey_requested", timeout: 30) != nil)
        try phone.command("type_passkey", ["phone": "bob", "digits": passkey])
        let connected = try #require(phone.waitFor("notifbridge_done", timeout: 40) { $0["cmd"] as? String == "notifbridge_connect" })
        try #require(connected["ok"] as? Bool == true, "connect: \(connected)")
        let picked = try #require(connected["name"] as? String)
        #expect(twoSets(controller) ? picked == name : name.hasPrefix(picked))
    }
}
