import Foundation
import Testing

/// The head unit's controller as real chips differ (the simulator's
/// controller switches, Tests/Phone/README.md).
enum ControllerVariant: String, CaseIterable, CustomTestStringConvertible, Sendable {
    /// No Read Encryption Key Size, as Bumble's own controller.
    case withoutKeySizeCommand
    /// A working resolving list: the controller resolves the bonded phone.
    case llPrivacyOn
    /// No resolving-list commands: the head unit refuses strangers itself.
    case llPrivacyOff
    /// LL Privacy with lists of one entry, and two bonded Settings phones.
    case smallLists
    /// One advertising set: the head unit's one combined payload on it.
    case oneAdvertisingSet
    /// Two advertising sets and extended scanning: the Settings and
    /// NotifBridge payloads each on a set of its own, with the same name
    /// (with sets but no extended scanning the head unit advertises the
    /// legacy way, so as never to mix the two kinds of command).
    case twoAdvertisingSets

    var testDescription: String { rawValue }

    var arguments: [String] {
        switch self {
        case .withoutKeySizeCommand: return ["--no-key-size-command"]
        case .llPrivacyOn: return ["--ll-privacy"]
        case .llPrivacyOff: return []
        case .smallLists: return ["--ll-privacy", "--accept-list-size", "1", "--resolving-list-size", "1"]
        case .oneAdvertisingSet: return ["--advertising-sets", "1"]
        case .twoAdvertisingSets: return ["--advertising-sets", "2", "--extended-scanning"]
        }
    }

    /// What the head unit logs about its lists once only bonded Settings
    /// phones may connect.
    var listLogLine: String {
        switch self {
        case .withoutKeySizeCommand, .llPrivacyOff, .oneAdvertisingSet, .twoAdvertisingSets: return "the controller cannot resolve private addresses (no LL Privacy)"
        case .llPrivacyOn: return "the controller's lists hold the 1 bonded phone(s)"
        case .smallLists: return "2 bonded phones, the controller's filter accept list holds 1"
        }
    }
}

/// Both ways of pairing, and coming back with the bond, on each controller
/// variant: the NavigationNotifier app phone (the head unit is central)
/// and a stock iPhone pairing from Settings (the head unit advertises).
@Suite(.serialized) struct ControllerVariantIntegrationTests {
    func count(_ unit: RunningHeadUnit, _ event: String) -> Int {
        unit.allEvents.filter { $0["event"] as? String == event }.count
    }

    /// No pairing failed: in particular not for the key size.
    func noPairingError(_ unit: RunningHeadUnit) -> [[String: Any]] {
        unit.allEvents.filter { $0["event"] as? String == "error" && $0["what"] as? String == "pairing" }
    }

    @Test(.serialized, arguments: ControllerVariant.allCases)
    func theAppPhonePairsAndComesBackFromANewAddress(variant: ControllerVariant) throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"] + variant.arguments, name: "variant-app-\(variant)")
        defer { phone.stop() }
        let unit = try SecurityIntegrationTests().pairFirstTime(phone, name: "variant-app-\(variant)")
        defer { unit.stop() }
        let encrypted = try #require(unit.waitFor("encrypted", timeout: 30))
        #expect(encrypted["bonded"] as? Bool == true)
        try phone.command("power_off", ["phone": "anna"])
        #expect(unit.waitForState("remembered", timeout: 30))
        try phone.command("rotate_address", ["phone": "anna"])
        try phone.command("power_on", ["phone": "anna"])
        #expect(unit.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true)
        #expect(count(unit, "passkey") == 1 && count(unit, "paired") == 1, "the bond was not used")
        #expect(noPairingError(unit).isEmpty, "\(noPairingError(unit))")
        if variant == .withoutKeySizeCommand {
            #expect(unit.stderr.all.contains { $0.contains("the controller cannot report the key size") })
        }
    }

    @Test(.serialized, arguments: ControllerVariant.allCases)
    func aStockIPhonePairsFromSettingsAndComesBackFromANewAddress(variant: ControllerVariant) throws {
        let settings = SettingsPairingIntegrationTests()
        let phone = try PhoneSimulator(arguments: variant.arguments, name: "variant-settings-\(variant)")
        defer { phone.stop() }
        try settings.addStockPhone(phone, "anna")
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: "variant-settings-\(variant)")
        defer { unit.stop() }
        #expect(settings.accessory(unit, "pairing") != nil)
        let anna = try settings.pairFromSettings(phone, unit, as: "anna")
        try phone.command("out_of_range", ["phone": "anna"])
        #expect(settings.accessory(unit, "bonded") != nil)
        if variant == .smallLists {
            // A second bonded phone: more bonds than the lists hold.
            unit.type("pair")
            #expect(settings.accessory(unit, "pairing") != nil)
            try settings.addStockPhone(phone, "bob")
            try settings.pairFromSettings(phone, unit, as: "bob")
            try phone.command("out_of_range", ["phone": "bob"])
            #expect(settings.accessory(unit, "bonded") != nil)
        }
        let rotated = try phone.command("rotate_address", ["phone": "anna"])
        #expect(rotated["ok"] as? Bool == true, "\(rotated)")
        try phone.command("in_range", ["phone": "anna"])
        let again = unit.waitFor("encrypted", timeout: 30) { $0["server"] as? String == anna }
        #expect(again?["bonded"] as? Bool == true, "the bonded phone did not get back in")
        let pairings = variant == .smallLists ? 2 : 1
        #expect(count(unit, "passkey") == pairings && count(unit, "paired") == pairings, "the bond was not used")
        #expect(noPairingError(unit).isEmpty, "\(noPairingError(unit))")
        let log = unit.stderr.all
        #expect(log.contains { $0.contains(variant.listLogLine) }, "no log line '\(variant.listLogLine)'")
    }
}
