import Foundation
import Testing

/// GhostDrop's sender finds the head unit as the reference finds a
/// receiver (docs/GHOSTDROP.md, "The capabilities on air"): a scan for
/// GhostDrop's service UUID (`ghostdrop_scan`) lists it, by the head unit's
/// one name, on every kind of controller: with a set of its own (three
/// sets), taking turns with the Settings accessory's advertising data on
/// its set (two sets), with the combined payload (one set, legacy).
@Suite(.serialized) struct GhostDropAdvertisingIntegrationTests {
    static let controllers: [[String]] = [[], ["--advertising-sets", "1", "--extended-scanning"],
                                          ["--advertising-sets", "2", "--extended-scanning"],
                                          ["--advertising-sets", "3", "--extended-scanning"]]

    func sets(_ controller: [String]) -> Int { Int(controller.dropFirst().first ?? "0") ?? 0 }

    /// A head unit on `controller` and a stock iPhone, anna, and the name
    /// the head unit says it advertises (its `accessory` event). Stop both when done.
    func started(_ label: String, _ controller: [String]) throws -> (PhoneSimulator, RunningHeadUnit, name: String) {
        let phone = try PhoneSimulator(arguments: controller, name: label)
        try phone.command("add_phone", ["name": "anna", "server_app": false, "apple_services": "after_bonding"])
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: label)
        let event = unit.waitFor("accessory", timeout: 30) { $0["state"] as? String == "pairing" }
        guard let name = event?["name"] as? String else {
            unit.stop()
            phone.stop()
            throw GhostDropAdvertisingError.noAccessoryEvent
        }
        return (phone, unit, name)
    }

    @Test(arguments: controllers)
    func aScanForGhostDropsServiceListsTheHeadUnitByItsName(controller: [String]) throws {
        let (phone, unit, name) = try started("ghostdrop-adv-sets\(sets(controller))", controller)
        defer { unit.stop(); phone.stop() }

        let scan = try phone.command("ghostdrop_scan", ["phone": "anna", "seconds": 15, "name": name], timeout: 25)
        let receivers = scan["receivers"] as? [[String: Any]] ?? []
        try #require(receivers.count == 1, "GhostDrop's sender lists the head unit once: \(scan)")
        let receiver = receivers[0]
        let listed = try #require(receiver["name"] as? String, "\(receiver)")
        // The name the head unit's other payloads carry: whole where the
        // Settings accessory has a set of its own, else the combined
        // payload's 11 bytes (AdvertisingPayload.combined).
        if sets(controller) >= 2 {
            #expect(listed == name && receiver["shortened"] as? Bool == false, "\(receiver)")
        } else {
            #expect(name.hasPrefix(listed) && listed.utf8.count == 11 && receiver["shortened"] as? Bool == true, "\(receiver)")
        }
        #expect(receiver["names"] as? [String] == [listed], "one name, holding still: \(receiver)")
        #expect(receiver["in_advertising_data"] as? Bool == true, "the UUID in the advertising PDU, where any scan filter matches")
        #expect(receiver["capabilities"] is NSNull, "no room for the capabilities in a legacy PDU: \(receiver)")

        // The shape the head unit chose, as its log says.
        let turns = unit.stderr.find(timeout: 1) { $0.contains("takes turns with the first payload's") }
        if sets(controller) >= 3 {
            #expect(turns == nil, "a set of its own: no turns")
            #expect(unit.stderr.find(timeout: 1) { $0.contains("3 payloads on a set each") } != nil)
        } else {
            #expect(turns != nil, "no log line saying the payloads take turns")
        }
    }

    /// The driver's phone, paired from Settings and connected (the head
    /// unit's other advertising pauses then), still finds the head unit by
    /// GhostDrop's UUID: GhostDrop's sender on it only scans.
    @Test(arguments: [[String](), ["--advertising-sets", "3", "--extended-scanning"]])
    func theConnectedPhoneStillFindsItByGhostDropsService(controller: [String]) throws {
        let (phone, unit, name) = try started("ghostdrop-adv-connected-sets\(sets(controller))", controller)
        defer { unit.stop(); phone.stop() }
        _ = try phone.command("list_accessories", ["phone": "anna", "wait": 15, "name": name], timeout: 20)
        try phone.command("tap_accessory", ["phone": "anna", "name": name, "timeout": 10], timeout: 20)
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        try phone.command("type_passkey", ["phone": "anna", "digits": passkey])
        try #require(unit.waitFor("paired", timeout: 30) != nil)
        try phone.command("close_settings", ["phone": "anna"])
        #expect(unit.stderr.find(timeout: 10) { $0.contains("advertising every") && $0.contains("152.5") } != nil,
                "GhostDrop's set back on air, slow, once the phone is in")

        let scan = try phone.command("ghostdrop_scan", ["phone": "anna", "seconds": 10, "name": name], timeout: 20)
        let receivers = scan["receivers"] as? [[String: Any]] ?? []
        try #require(receivers.count == 1, "the connected phone lists the head unit: \(scan)")
        let listed = try #require(receivers[0]["name"] as? String)
        #expect(listed == name || (receivers[0]["shortened"] as? Bool == true && name.hasPrefix(listed)), "\(receivers[0])")
        #expect(phone.waitFor("accessory_renamed", timeout: 0.1) == nil)
        let state = try phone.command("state", ["phone": "anna"])
        #expect((state["peers"] as? [Any])?.count == 1 && state["encrypted"] as? Bool == true, "still the one secure link: \(state)")
    }
}

enum GhostDropAdvertisingError: Error { case noAccessoryEvent }
