import Foundation
import Testing

/// A stranger replays the bonded iPhone's private address (it is on the
/// air all day), taps the head unit in Settings and starts pairing, then
/// abandons it, and tries again with a wrong passkey. The owner's bond
/// must still work and pairing mode must stay closed (docs/ROBUSTNESS.md,
/// "Bonds change only on success").
@Suite(.serialized) struct OwnerBondIntegrationTests {
    let settings = SettingsPairingIntegrationTests()

    /// Mallory taps the head unit from Anna's address; the head unit shows a
    /// passkey Mallory cannot read. Returns once the passkey was shown.
    func strangerStartsPairing(_ phone: PhoneSimulator, _ unit: RunningHeadUnit, passkeysBefore: Int) throws {
        let name = try settings.listedHeadUnit(phone, on: "mallory")
        let tapped = try phone.command("tap_accessory", ["phone": "mallory", "name": name, "timeout": 10], timeout: 20)
        #expect(tapped["ok"] as? Bool == true, "\(tapped)")
        #expect(phone.waitFor("passkey_requested", timeout: 30) { $0["phone"] as? String == "mallory" } != nil)
        let deadline = Date().addingTimeInterval(30)
        while settings.count(unit, "passkey") == passkeysBefore && Date() < deadline { usleep(100_000) }
        #expect(settings.count(unit, "passkey") == passkeysBefore + 1, "the stranger's pairing never reached the passkey")
    }

    /// Anna's phone, back with its bond, is the phone: connected, never
    /// paired a second time, and its Maps instruction is shown.
    func expectAnnaIsThePhoneWithoutPairingAgain(_ phone: PhoneSimulator, _ unit: RunningHeadUnit,
                                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(settings.accessory(unit, "connected") != nil, sourceLocation: sourceLocation)
        #expect(settings.count(unit, "paired") == 1, "the owner had to pair again", sourceLocation: sourceLocation)
        try phone.command("post_notification", ["phone": "anna", "app": "com.apple.Maps", "category": "location",
                                                "title": "In 300 m", "message": "Turn left onto Main Street"])
        let shown = unit.waitFor("notification", timeout: 20) { $0["action"] as? String == "shown" && $0["title"] as? String == "In 300 m" }
        #expect(shown?["kind"] as? String == "navigation", sourceLocation: sourceLocation)
    }

    @Test func aStrangerOnTheOwnersAddressWhoAbandonsOrFailsPairingChangesNothing() throws {
        let (phone, unit, server) = try settings.pairedStockPhone("owner-bond")
        defer { unit.stop(); phone.stop() }
        let bondFiles = { (try? FileManager.default.contentsOfDirectory(atPath: unit.stateDirectory.path))?
            .filter { $0.hasPrefix("bond-") && !$0.hasSuffix(".tmp") }.sorted() ?? [] }
        let mark = unit.allEvents.count
        let bondsBefore = bondFiles()
        let bondBytes = bondsBefore.map { try? Data(contentsOf: unit.stateDirectory.appendingPathComponent($0)) }
        // Anna drives off; Mallory, parked next to the car, heard her address.
        try phone.command("out_of_range", ["phone": "anna"])
        #expect(settings.accessory(unit, "bonded") != nil)
        let annaAddress = try #require(try settings.phoneState(phone, "anna")["address"] as? String)
        try settings.addStockPhone(phone, "mallory")
        let replayed = try phone.command("rotate_address", ["phone": "mallory", "address": annaAddress])
        #expect(replayed["address"] as? String == annaAddress, "\(replayed)")

        // 1. Pairing started and abandoned: the link is simply lost.
        try strangerStartsPairing(phone, unit, passkeysBefore: 1)
        try phone.command("power_off", ["phone": "mallory"])
        #expect(phone.waitFor("powered", timeout: 10) { $0["phone"] as? String == "mallory" && $0["on"] as? Bool == false } != nil)
        usleep(500_000)

        // 2. Pairing started and failed: a wrong passkey. The link is then
        // dropped by the head unit (or by the failure), never kept.
        try phone.command("power_on", ["phone": "mallory"])
        try phone.command("rotate_address", ["phone": "mallory", "address": annaAddress])
        try strangerStartsPairing(phone, unit, passkeysBefore: 2)
        try phone.command("type_passkey", ["phone": "mallory", "digits": "000000"])
        #expect(phone.waitFor("pairing_failed", timeout: 30) { $0["phone"] as? String == "mallory" } != nil)
        #expect(phone.waitFor("disconnected", timeout: 15) { $0["phone"] as? String == "mallory" } != nil,
                "the stranger's link was kept after its pairing failed")
        #expect(unit.waitFor("error", timeout: 5) { $0["what"] as? String == "pairing" }?["detail"] as? String
                == "aborted: confirm value failed")
        try phone.command("power_off", ["phone": "mallory"])

        // Nothing changed: pairing mode never opened, the bond is the same file.
        let events = unit.allEvents.dropFirst(mark)
        #expect(!events.contains { $0["event"] as? String == "accessory" && $0["state"] as? String == "pairing" },
                "pairing mode opened for a stranger")
        #expect(!events.contains { $0["event"] as? String == "error" && $0["what"] as? String == "bond" })
        #expect(settings.count(unit, "paired") == 1)
        #expect(bondFiles() == bondsBefore)
        #expect(bondsBefore.map { try? Data(contentsOf: unit.stateDirectory.appendingPathComponent($0)) } == bondBytes)
        var status: String?
        for _ in 0..<10 where status == nil {
            unit.type("status")
            status = unit.console.next(timeout: 1) { $0.hasPrefix("accessory: ") }
        }
        #expect(status?.hasPrefix("accessory: bonded") == true, "status: \(status ?? "none")")
        #expect(unit.console.next(timeout: 2) { $0.hasPrefix("pairing attempts: ") } != nil)

        // Anna comes back: her phone reconnects by itself and encrypts with its keys.
        try phone.command("in_range", ["phone": "anna"])
        #expect(phone.waitFor("reconnecting", timeout: 30) { $0["phone"] as? String == "anna" } != nil)
        let again = unit.waitFor("encrypted", timeout: 30) { $0["server"] as? String == server }
        #expect(again?["bonded"] as? Bool == true)
        try expectAnnaIsThePhoneWithoutPairingAgain(phone, unit)
    }

    /// Mallory, on an address Anna used before (the head unit resolves it to
    /// Anna's bond), taps the head unit and sits there: no pairing, Security
    /// Requests ignored. Anna comes back while Mallory is still connected:
    /// the head unit keeps advertising while no link is secure, Anna's phone
    /// reconnects by itself beside Mallory and encrypts with its bond, and
    /// Mallory is dropped then, not at the end of the 5 s a stranger has.
    @Test func theOwnersPhoneGetsInWhileAStrangerIsConnected() throws {
        let (phone, unit, server) = try settings.pairedStockPhone("stranger-connected")
        defer { unit.stop(); phone.stop() }
        try phone.command("out_of_range", ["phone": "anna"])
        #expect(settings.accessory(unit, "bonded") != nil)
        #expect(phone.waitFor("disconnected", timeout: 30) { $0["phone"] as? String == "anna" } != nil)
        let annaAddress = try #require(try settings.phoneState(phone, "anna")["address"] as? String)
        try phone.command("rotate_address", ["phone": "anna"])
        try settings.addStockPhone(phone, "mallory")
        try phone.command("rotate_address", ["phone": "mallory", "address": annaAddress])
        let mark = unit.allEvents.count

        let name = try settings.listedHeadUnit(phone, on: "mallory")
        let tapped = try phone.command("tap_accessory", ["phone": "mallory", "name": name, "timeout": 10, "secure": false],
                                       timeout: 20)
        #expect(tapped["ok"] as? Bool == true, "\(tapped)")

        // Anna comes back at once; Mallory still holds her link.
        try phone.command("in_range", ["phone": "anna"])
        let again = unit.waitFor("encrypted", timeout: 30) { $0["server"] as? String == server }
        #expect(again?["bonded"] as? Bool == true)
        #expect(phone.waitFor("disconnected", timeout: 10) { $0["phone"] as? String == "mallory" } != nil,
                "the stranger's link was kept once the owner's phone encrypted")
        let events = unit.allEvents.dropFirst(mark)
        let encryptedAt = events.firstIndex { $0["event"] as? String == "encrypted" }
        let droppedAt = events.firstIndex {
            $0["event"] as? String == "error" && $0["what"] as? String == "accessory"
                && ($0["detail"] as? String)?.contains("not the phone") == true
        }
        #expect(encryptedAt != nil && droppedAt != nil && encryptedAt! < droppedAt!,
                "the stranger was not dropped for the owner's phone: \(Array(events))")
        #expect(!events.contains { ($0["detail"] as? String)?.contains("did not pair or encrypt") == true },
                "the stranger was dropped by the 5 s timer, not when the owner's phone encrypted")
        try expectAnnaIsThePhoneWithoutPairingAgain(phone, unit)
    }
}
