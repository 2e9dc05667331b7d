import Foundation
import Testing

/// The NavigationNotifier pairing rules end to end: `headunit run` against
/// the simulated phones, watched through the event log and the phone's own
/// report of what was read and written.
@Suite(.serialized) struct PairingRoutineIntegrationTests {
    func clientName(_ unit: RunningHeadUnit) throws -> String {
        let text = try String(contentsOf: unit.stateDirectory.appendingPathComponent("client-name"), encoding: .utf8)
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func firstPairingWritesOurNameSubscribesAndRemembers() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: "first")
        defer { unit.stop() }
        #expect(unit.waitForState("discovering"))
        let connected = unit.waitFor("state") { $0["state"] as? String == "connected" }
        let server = try #require(connected?["server"] as? String)
        let me = try clientName(unit)
        #expect(me.hasPrefix("HU-") && me.count == 9)
        #expect(phone.waitFor("gatt_write") { $0["value"] as? String == me && $0["result"] as? String == "ok" } != nil)
        #expect(phone.waitFor("subscribed") { $0["notify"] as? Bool == true } != nil)
        let remembered = try String(contentsOf: unit.stateDirectory.appendingPathComponent("server-name"), encoding: .utf8)
        #expect(remembered.trimmingCharacters(in: .whitespacesAndNewlines) == server)
        let state = try phone.command("state", ["phone": "anna"])
        #expect(state["paired_client"] as? String == me)
    }

    @Test func reconnectsAfterLinkLossAndAfterTheAddressRotates() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: "reconnect")
        defer { unit.stop() }
        #expect(unit.waitForState("connected"))
        // Link loss: the phone goes out of range and comes back.
        try phone.command("out_of_range", ["phone": "anna"])
        #expect(unit.waitForState("remembered", timeout: 30))
        try phone.command("in_range", ["phone": "anna"])
        #expect(unit.waitForState("connected", timeout: 30))
        // The phone turns Bluetooth off, rotates its address, comes back.
        try phone.command("power_off", ["phone": "anna"])
        #expect(unit.waitForState("remembered", timeout: 30))
        let rotated = try phone.command("rotate_address", ["phone": "anna"])
        #expect(rotated["ok"] as? Bool == true)
        try phone.command("power_on", ["phone": "anna"])
        #expect(unit.waitForState("connected", timeout: 30))
        let state = try phone.command("state", ["phone": "anna"])
        #expect(state["address"] as? String != rotated["old_address"] as? String)
        #expect(state["connected"] as? Bool == true)
    }

    @Test func unpairOnThePhoneDisconnectsForgetsAndWaitsForTheUser() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: "phone-unpair")
        defer { unit.stop() }
        #expect(unit.waitForState("connected"))
        try phone.command("unpair", ["phone": "anna"])
        #expect(unit.waitForState("discover"))
        #expect(phone.waitFor("disconnected") != nil)
        #expect(!FileManager.default.fileExists(atPath: unit.stateDirectory.appendingPathComponent("server-name").path))
        // It does not grab the phone again by itself...
        #expect(unit.waitFor("state", timeout: 3) == nil)
        // ...but does when the user asks.
        unit.type("scan")
        #expect(unit.waitForState("connected"))
    }

    @Test func unpairOnTheHeadUnitWritesUnpairedThenForgets() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: "hu-unpair")
        defer { unit.stop() }
        #expect(unit.waitForState("connected"))
        unit.type("unpair")
        #expect(phone.waitFor("gatt_write") { $0["value"] as? String == "UNPAIRED" } != nil)
        #expect(unit.waitForState("discover"))
        let state = try phone.command("state", ["phone": "anna"])
        #expect(state["paired_client"] as? String == "UNPAIRED")
        #expect(!FileManager.default.fileExists(atPath: unit.stateDirectory.appendingPathComponent("server-name").path))
    }

    @Test func phonePairedWithAnotherClientIsRefusedAndAnAvailableOneChosen() throws {
        let phone = try PhoneSimulator(arguments: [])
        defer { phone.stop() }
        try phone.command("add_phone", ["name": "bob", "server_name": "Bob-iPhone", "paired_client": "HU-000001"])
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: "other-client")
        defer { unit.stop() }
        // Bob's phone belongs to another head unit: read, refused, never written.
        #expect(phone.waitFor("gatt_read") { $0["phone"] as? String == "bob" && $0["characteristic"] as? String == "paired_client_name" } != nil)
        #expect(phone.waitFor("disconnected") { $0["phone"] as? String == "bob" } != nil)
        try phone.command("add_phone", ["name": "anna", "server_name": "Anna-iPhone"])
        #expect(unit.waitForState("connected", server: "Anna-iPhone", timeout: 30))
        let bob = try phone.command("state", ["phone": "bob"])
        #expect(bob["paired_client"] as? String == "HU-000001")
        #expect(!phone.events.all.contains { $0.contains("\"gatt_write\"") && $0.contains("\"bob\"") })
    }

    @Test func rememberedPhoneUnpairedOnItsSideIsForgotten() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let first = try RunningHeadUnit(hci: phone.hciSpec, name: "remembered")
        #expect(first.waitForState("connected"))
        first.stop()
        // While the head unit is off, the user unpairs on the phone.
        try phone.command("set_paired", ["phone": "anna", "value": "UNPAIRED"])
        let second = try RunningHeadUnit(hci: phone.hciSpec, stateDirectory: first.stateDirectory, name: "remembered2")
        defer { second.stop() }
        #expect(second.waitForState("remembered"))
        #expect(second.waitForState("discover", timeout: 30))
        #expect(!FileManager.default.fileExists(atPath: second.stateDirectory.appendingPathComponent("server-name").path))
        let state = try phone.command("state", ["phone": "anna"])
        #expect(state["paired_client"] as? String == "UNPAIRED")
    }

    @Test func statusOnTheConsole() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: "status")
        defer { unit.stop() }
        #expect(unit.waitForState("connected"))
        unit.type("status")
        #expect(unit.console.next(timeout: 5) { $0.hasPrefix("state: Connected to server:") } != nil)
        #expect(unit.console.next(timeout: 5) { $0.contains("ATT_MTU 247") } != nil)
        unit.type("frobnicate")
        #expect(unit.console.next(timeout: 5) { $0.contains("unknown command") } != nil)
    }
}
