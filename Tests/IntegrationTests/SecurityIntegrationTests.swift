import Foundation
import Testing

/// LE Secure Connections against the simulated iPhone: passkey entry with
/// the digits read from the head unit's events and typed into the phone,
/// bonding, re-encryption with stored keys, a phone that forgot the bond, a
/// wrong passkey.
@Suite(.serialized) struct SecurityIntegrationTests {
    /// Pairs a fresh head unit with phone `anna`, typing the passkey shown.
    func pairFirstTime(_ phone: PhoneSimulator, name: String) throws -> RunningHeadUnit {
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: name)
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(passkey.count == 6 && passkey.allSatisfy(\.isNumber))
        try type(passkey, into: phone)
        return unit
    }

    /// Types on the phone once it asks, as a person would.
    func type(_ passkey: String, into phone: PhoneSimulator) throws {
        #expect(phone.waitFor("passkey_requested", timeout: 30) != nil)
        let reply = try phone.command("type_passkey", ["phone": "anna", "digits": passkey])
        #expect(reply["ok"] as? Bool == true, "the phone was not waiting for a passkey")
    }

    func bondFiles(_ unit: RunningHeadUnit) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: unit.stateDirectory.path)) ?? []
        return names.filter { $0.hasPrefix("bond-") && !$0.hasSuffix(".tmp") }.map { unit.stateDirectory.appendingPathComponent($0) }
    }

    @Test func firstPairingWithPasskeyBondsAndEncrypts() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let unit = try pairFirstTime(phone, name: "passkey")
        defer { unit.stop() }
        let paired = try #require(unit.waitFor("paired", timeout: 30))
        #expect(paired["method"] as? String == "passkey")
        #expect(paired["secure_connections"] as? Bool == true)
        #expect(paired["mitm"] as? Bool == true)
        let encrypted = try #require(unit.waitFor("encrypted"))
        #expect(encrypted["bonded"] as? Bool == true)
        #expect(phone.waitFor("paired") { $0["mitm"] as? Bool == true && $0["bonded"] as? Bool == true } != nil)
        // One bond file, readable by its owner only.
        let files = bondFiles(unit)
        #expect(files.count == 1)
        if let file = files.first {
            let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600)
        }
        unit.stop()
        let detail = try TShark.decode(unit.traceURL, verbose: true)
        #expect(detail.contains("Pairing Request") && detail.contains("Pairing Public Key") && detail.contains("Pairing DHKey Check"))
        #expect(!detail.lowercased().contains("malformed"), "tshark reports malformed packets")
        // The trace is the owner's alone, and its keys are zeroed: the LTK
        // the head unit gave the controller, the keys both sides distributed.
        let traceMode = try FileManager.default.attributesOfItem(atPath: unit.traceURL.path)[.posixPermissions] as? NSNumber
        #expect(traceMode?.intValue == 0o600)
        let keys = detail.split(separator: "\n").filter {
            $0.contains("Long Term Key:") || $0.contains("Identity Resolving Key:") || $0.contains("Signature Key:")
        }
        #expect(keys.count >= 3, "the LTK in Enable Encryption, the IRKs both ways: \(keys)")
        #expect(keys.allSatisfy { $0.hasSuffix(String(repeating: "0", count: 32)) }, "keys in clear: \(keys)")
    }

    @Test func statusBarTakesTheTimeFromThePhone() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        try phone.command("set_clock", ["phone": "anna", "time": "2026-11-22T08:15:00"])
        let unit = try pairFirstTime(phone, name: "clock")
        defer { unit.stop() }
        #expect(unit.waitFor("encrypted", timeout: 30) != nil)
        var line: String?
        for _ in 0..<20 where line == nil {
            unit.type("status")
            line = unit.console.next(timeout: 1) { $0.hasPrefix("clock: 8:1") && $0.contains("from the phone") }
        }
        #expect(line != nil)
    }

    @Test func reconnectsWithStoredKeysAfterTheAddressRotates() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let unit = try pairFirstTime(phone, name: "rebond")
        defer { unit.stop() }
        #expect(unit.waitFor("encrypted", timeout: 30) != nil)
        try phone.command("power_off", ["phone": "anna"])
        #expect(unit.waitForState("remembered", timeout: 30))
        let rotated = try phone.command("rotate_address", ["phone": "anna"])
        try phone.command("power_on", ["phone": "anna"])
        let again = try #require(unit.waitFor("encrypted", timeout: 30))
        #expect(again["bonded"] as? Bool == true)
        let state = try phone.command("state", ["phone": "anna"])
        #expect(state["address"] as? String != rotated["old_address"] as? String)
        // No second pairing: the stored LTK did it.
        #expect(unit.allEvents.filter { $0["event"] as? String == "passkey" }.count == 1)
        #expect(unit.allEvents.filter { $0["event"] as? String == "paired" }.count == 1)
    }

    @Test func bondedPhoneIsRecognisedByItsIRKBeforeConnecting() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let first = try pairFirstTime(phone, name: "irk")
        #expect(first.waitFor("encrypted", timeout: 30) != nil)
        first.stop()
        // While the car is off, Anna's phone goes quiet and another
        // NavigationNotifier phone, free to pair, is around.
        try phone.command("power_off", ["phone": "anna"])
        try phone.command("rotate_address", ["phone": "anna"])
        try phone.command("add_phone", ["name": "bob", "server_name": "Bob-iPhone"])
        let unit = try RunningHeadUnit(hci: phone.hciSpec, stateDirectory: first.stateDirectory, name: "irk2")
        defer { unit.stop() }
        #expect(unit.waitForState("remembered"))
        Thread.sleep(forTimeInterval: 3)
        try phone.command("power_on", ["phone": "anna"])
        #expect(unit.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true)
        // Bob's addresses did not resolve with Anna's IRK: never connected to.
        let bobConnected = phone.events.all.compactMap(PhoneSimulator.parse).contains {
            $0["event"] as? String == "connected" && $0["phone"] as? String == "bob"
        }
        #expect(!bobConnected)
    }

    @Test func phoneThatForgotTheBondIsPairedAgain() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let unit = try pairFirstTime(phone, name: "forgot")
        defer { unit.stop() }
        #expect(unit.waitFor("encrypted", timeout: 30) != nil)
        try phone.command("power_off", ["phone": "anna"])
        #expect(unit.waitForState("remembered", timeout: 30))
        try phone.command("forget_bond", ["phone": "anna"])
        try phone.command("power_on", ["phone": "anna"])
        let hint = unit.waitFor("error", timeout: 30) { ($0["detail"] as? String)?.contains("Phone forgot this head unit") == true }
        #expect(hint != nil)
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        try type(passkey, into: phone)
        #expect(unit.waitFor("paired", timeout: 30) != nil)
        #expect(unit.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true)
        #expect(bondFiles(unit).count == 1)
    }

    /// KNOB on re-encryption: the controller reports a 7-octet key for the
    /// bonded reconnection. The head unit refuses the link and drops it
    /// (0x05 Authentication Failure), without ANCS; the next reconnection,
    /// with a full-size key, is used.
    @Test func reconnectWithAShortKeyIsRefusedAndTheLinkDropped() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let unit = try pairFirstTime(phone, name: "short-key")
        defer { unit.stop() }
        #expect(unit.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true)
        // The phone has stored its side of the bond.
        #expect(phone.waitFor("paired", timeout: 30) { $0["bonded"] as? Bool == true } != nil)
        try phone.command("power_off", ["phone": "anna"])
        #expect(unit.waitForState("remembered", timeout: 30))
        try phone.command("short_encryption_key", ["key_size": 7])
        try phone.command("power_on", ["phone": "anna"])
        #expect(phone.waitFor("fault", timeout: 30) { $0["fault"] as? String == "short_encryption_key" } != nil)
        let refused = unit.waitFor("error", timeout: 10) { $0["what"] as? String == "pairing" }
        #expect(refused?["detail"] as? String == "encryption key size 7 too small", "\(String(describing: refused))")
        let dropped = phone.waitFor("disconnected", timeout: 10)
        #expect(dropped?["reason"] as? Int == 0x05, "link end: \(String(describing: dropped))")
        // The next reconnection has a 16-octet key: encrypted with the bond, no new pairing.
        #expect(unit.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true)
        let events = unit.allEvents.compactMap { $0["event"] as? String }
        #expect(events.filter { $0 == "paired" }.count == 1)
        // The refused link was never reported encrypted: the second
        // `encrypted` comes after the refusal.
        let encrypted = events.indices.filter { events[$0] == "encrypted" }
        let refusal = events.firstIndex(of: "error")
        #expect(encrypted.count == 2 && refusal != nil && encrypted[0] < refusal! && refusal! < encrypted[1], "\(events)")
    }

    @Test func wrongPasskeyFailsCleanlyAndCanBeRetried() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "anna"])
        defer { phone.stop() }
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: "wrong-passkey")
        defer { unit.stop() }
        let shown = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        let wrong = shown == "000000" ? "111111" : "000000"
        try type(wrong, into: phone)
        #expect(unit.waitFor("error", timeout: 30) { $0["what"] as? String == "pairing" } != nil)
        #expect(bondFiles(unit).isEmpty)
        // The head unit tries again (after its back-off) with a new passkey.
        let second = try #require(unit.waitFor("passkey", timeout: 60)?["passkey"] as? String)
        try type(second, into: phone)
        #expect(unit.waitFor("paired", timeout: 30) != nil)
        #expect(unit.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true)
    }
}
