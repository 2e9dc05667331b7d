import Foundation
import Testing

/// A head unit controller that refuses legacy and extended advertising,
/// scanning and initiating commands mixed (Core Vol 4 Part E 3.1.1, the
/// simulator's `--no-mixing`), with two advertising sets: with extended
/// scanning and initiating the head unit uses the extended form for
/// everything (two sets, one name in full); without, the legacy form for
/// everything (one combined payload). Either way the NavigationNotifier
/// routine finds and pairs the app phone, and a stock iPhone lists one
/// name and pairs from Settings; nothing is refused.
@Suite(.serialized) struct ExtendedScanningIntegrationTests {
    enum Controller: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case setsAndExtendedScanning
        case setsWithoutExtendedScanning

        var testDescription: String { rawValue }

        var arguments: [String] {
            switch self {
            case .setsAndExtendedScanning: return ["--no-mixing", "--advertising-sets", "2", "--extended-scanning"]
            case .setsWithoutExtendedScanning: return ["--no-mixing", "--advertising-sets", "2"]
            }
        }

        /// What the head unit says about the controller once it is up.
        var readyLogLine: String {
            switch self {
            case .setsAndExtendedScanning: return "extended advertising (2 sets), scanning and connecting"
            case .setsWithoutExtendedScanning: return "legacy advertising, scanning and connecting"
            }
        }
    }

    /// Whatever the controller refused: a mix would show up here as 0x0C.
    func refusals(_ unit: RunningHeadUnit) -> [String] {
        unit.stderr.all.filter { $0.contains("Command Disallowed") }
    }

    @Test(arguments: Controller.allCases)
    func theAppPhoneIsFoundAndPaired(controller: Controller) throws {
        let label = "extscan-app-\(controller)"
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"] + controller.arguments, name: label)
        defer { phone.stop() }
        let unit = try SecurityIntegrationTests().pairFirstTime(phone, name: label)
        defer { unit.stop() }
        #expect(unit.waitFor("paired", timeout: 30) != nil)
        #expect(unit.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true)
        // The routine found the app phone, connected as central and wrote our name to the app.
        #expect(unit.allEvents.contains { $0["event"] as? String == "state" && $0["state"] as? String == "connected" })
        let me = try PairingRoutineIntegrationTests().clientName(unit)
        let state = try phone.command("state", ["phone": "anna"])
        #expect(state["paired_client"] as? String == me, "the NavigationNotifier routine did not write our name: \(state)")
        #expect(unit.stderr.all.contains { $0.contains(controller.readyLogLine) }, "no log line '\(controller.readyLogLine)'")
        #expect(refusals(unit).isEmpty, "\(refusals(unit))")
    }

    @Test(arguments: Controller.allCases)
    func aStockIPhoneSeesOneNameAndPairsFromSettings(controller: Controller) throws {
        let label = "extscan-settings-\(controller)"
        let settings = SettingsPairingIntegrationTests()
        let phone = try PhoneSimulator(arguments: controller.arguments, name: label)
        defer { phone.stop() }
        try settings.addStockPhone(phone, "anna")
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: label)
        defer { unit.stop() }
        let event = try #require(settings.accessory(unit, "pairing"))
        let name = try #require(event["name"] as? String)

        // Settings → Bluetooth, open for several seconds: one row, one name.
        let oneName = OneNameIntegrationTests()
        let listed = try phone.command("list_accessories", ["phone": "anna", "wait": 15, "name": name], timeout: 20)
        let rows = (listed["accessories"] as? [[String: Any]] ?? []).filter { oneName.isCalled($0, name) }
        try #require(rows.count == 1, "Settings lists the head unit once: \(listed)")
        Thread.sleep(forTimeInterval: 3)
        let later = try phone.command("list_accessories", ["phone": "anna"], timeout: 10)
        let row = try #require((later["accessories"] as? [[String: Any]] ?? []).first { oneName.isCalled($0, name) })
        let shown = try #require(row["name"] as? String)
        #expect(row["names"] as? [String] == [shown], "the Settings row changed its name: \(row)")
        if controller == .setsAndExtendedScanning {
            #expect(shown == name, "two sets: the whole name")
        } else {
            #expect(name.hasPrefix(shown) && shown.utf8.count == 11, "one combined payload: its first 11 bytes, not \(shown)")
        }

        try settings.pairFromSettings(phone, unit, as: "anna")
        #expect(unit.stderr.all.contains { $0.contains(controller.readyLogLine) }, "no log line '\(controller.readyLogLine)'")
        #expect(refusals(unit).isEmpty, "\(refusals(unit))")
    }
}
