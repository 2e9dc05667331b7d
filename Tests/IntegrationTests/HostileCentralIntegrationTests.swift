import Foundation
import Testing

/// Hostile centrals (docs/ROBUSTNESS.md, "Hostile centrals"): strangers that
/// connect to the head unit as an iPhone would (Tests/Phone/phone/device/
/// hostile.py), against the `headunit run` binary whose owner paired a
/// stock iPhone from Settings. After each attack the owner's bond must still
/// work: her phone reconnects by itself, encrypts with its keys (no new
/// passkey), and a Maps notification is shown; pairing mode never opened by
/// itself; the console still answers.
@Suite(.serialized) struct HostileCentralIntegrationTests {
    let settings = SettingsPairingIntegrationTests()

    /// Anna's stock iPhone paired from Settings, then away (out of range): the
    /// head unit advertises for her alone. `address` is the private address
    /// she was last heard with.
    func ownerAway(_ name: String) throws -> (PhoneSimulator, RunningHeadUnit, server: String, address: String) {
        let (phone, unit, server) = try settings.pairedStockPhone(name)
        let address = try #require(try settings.phoneState(phone, "anna")["address"] as? String)
        try phone.command("out_of_range", ["phone": "anna"])
        #expect(settings.accessory(unit, "bonded") != nil, "the head unit did not go back to waiting for its phone")
        #expect(phone.waitFor("disconnected", timeout: 30) { $0["phone"] as? String == "anna" } != nil)
        return (phone, unit, server, address)
    }

    func addStranger(_ phone: PhoneSimulator, replaying address: String? = nil) throws {
        let added = try phone.command("add_hostile", ["name": "mallory"])
        #expect(added["ok"] as? Bool == true, "\(added)")
        if let address {
            let replayed = try phone.command("hostile_replay", ["name": "mallory", "address": address])
            #expect(replayed["address"] as? String == address, "\(replayed)")
        }
    }

    /// A stranger with the owner's `address` connects to the head unit (the
    /// controller resolves it to the owner, so the link is taken).
    func strangerConnects(_ phone: PhoneSimulator, replaying address: String,
                          sourceLocation: SourceLocation = #_sourceLocation) throws {
        try addStranger(phone, replaying: address)
        let connected = try phone.command("hostile_connect", ["name": "mallory", "timeout": 10], timeout: 20)
        #expect(connected["ok"] as? Bool == true, "the replayed address did not get a link: \(connected)",
                sourceLocation: sourceLocation)
    }

    /// The stranger goes (its radio off), and Anna comes back from a new
    /// private address (unless she is back already).
    func ownerComesBack(_ phone: PhoneSimulator, _ unit: RunningHeadUnit, server: String, since mark: Int,
                        alreadyBack: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try phone.command("remove_hostile", ["name": "mallory"])
        // Pairing mode never opened by itself, and the bond was not touched.
        let sinceAttack = unit.allEvents.dropFirst(mark)
        let states = sinceAttack.filter { $0["event"] as? String == "accessory" }.compactMap { $0["state"] as? String }
        #expect(!states.contains("pairing"), "pairing mode opened: \(states)", sourceLocation: sourceLocation)
        let bondErrors = sinceAttack.filter { $0["event"] as? String == "error" && $0["what"] as? String == "bond" }
        #expect(bondErrors.isEmpty, "the head unit thinks its phone forgot it: \(bondErrors)", sourceLocation: sourceLocation)
        #expect(bondFiles(unit).count == 1, "the owner's bond file is gone", sourceLocation: sourceLocation)

        if !alreadyBack {
            try phone.command("rotate_address", ["phone": "anna"])
            try phone.command("in_range", ["phone": "anna"])
        }
        let again = unit.waitFor("encrypted", timeout: 30) { $0["server"] as? String == server }
        #expect(again?["bonded"] as? Bool == true, "the owner did not get back in with her keys", sourceLocation: sourceLocation)
        #expect(settings.count(unit, "paired") == 1, "the owner had to pair again", sourceLocation: sourceLocation)
        try phone.command("post_notification", ["phone": "anna", "app": "com.apple.Maps", "category": "location",
                                                "title": "In 200 m", "message": "Turn right onto Elm Street"])
        let shown = unit.waitFor("notification", timeout: 20) { $0["action"] as? String == "shown" }
        #expect(shown?["title"] as? String == "In 200 m", "no Maps notification shown after the attack", sourceLocation: sourceLocation)
        #expect(settings.accessory(unit, "connected") != nil, sourceLocation: sourceLocation)
        #expect(statusAnswers(unit), "the console does not answer status", sourceLocation: sourceLocation)
    }

    func bondFiles(_ unit: RunningHeadUnit) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: unit.stateDirectory.path)) ?? [])
            .filter { $0.hasPrefix("bond-") && !$0.hasSuffix(".tmp") }
    }

    /// `status` on the console is answered within 2 s.
    func statusAnswers(_ unit: RunningHeadUnit) -> Bool {
        let start = Date()
        unit.type("status")
        guard unit.console.next(timeout: 10, where: { $0.hasPrefix("state: ") }) != nil else { return false }
        return Date().timeIntervalSince(start) < 2
    }

    /// A stranger connects from the owner's current private address (heard on
    /// the air) and starts encryption as if it held her bond: the controllers
    /// fail it (the keys differ), the link ends, nothing about the bond changes.
    @Test func addressReplay() throws {
        let (phone, unit, server, address) = try ownerAway("hostile-replay")
        defer { unit.stop(); phone.stop() }
        let mark = unit.allEvents.count
        try strangerConnects(phone, replaying: address)
        let attempt = try phone.command("hostile_encrypt", ["name": "mallory", "wait": 5], timeout: 15)
        #expect(attempt["encrypted"] as? Bool == false, "a made-up key encrypted the link: \(attempt)")
        // The head unit answered with the bond's key; the controllers' keys differ: MIC failure.
        #expect(attempt["reason"] as? Int == 0x3D, "\(attempt)")
        #expect(settings.count(unit, "encrypted") == 1 && settings.count(unit, "passkey") == 1)
        try ownerComesBack(phone, unit, server: server, since: mark)
    }

    /// A stranger from the owner's private address sends a Pairing Request
    /// and a public key (far enough for a passkey on screen), then gives up
    /// (`disconnect`) or fails it (`failed`): the owner's bond stays, pairing
    /// mode stays closed.
    @Test(arguments: ["disconnect", "failed"])
    func pairingFromTheBondedIdentity(_ abandon: String) throws {
        let (phone, unit, server, address) = try ownerAway("hostile-pair-\(abandon)")
        defer { unit.stop(); phone.stop() }
        let mark = unit.allEvents.count
        try strangerConnects(phone, replaying: address)
        let attempt = try phone.command("hostile_pair", ["name": "mallory", "abandon": abandon, "wait": 3], timeout: 15)
        print("the head unit answered the Pairing Request with \(attempt["answer"] ?? "nothing"), its public key: \(attempt["public_key"] ?? "?")")
        try phone.command("hostile_disconnect", ["name": "mallory"])
        Thread.sleep(forTimeInterval: 1)
        try ownerComesBack(phone, unit, server: server, since: mark)
    }

    /// A stranger connects (from an older private address of the owner's, the
    /// only way past the controller's accept list) and sits there, answering
    /// nothing, while the owner comes back from her new address: the stranger
    /// is dropped within a few seconds, and the owner gets in.
    @Test func connectionHogging() throws {
        let (phone, unit, server, address) = try ownerAway("hostile-hog")
        defer { unit.stop(); phone.stop() }
        let mark = unit.allEvents.count
        try strangerConnects(phone, replaying: address)
        try phone.command("rotate_address", ["phone": "anna"])
        try phone.command("in_range", ["phone": "anna"])
        let sat = try phone.command("hostile_sit", ["name": "mallory", "seconds": 15], timeout: 25)
        #expect(sat["dropped"] as? Bool == true, "the stranger held the link for 15 s: \(sat)")
        if let held = sat["held_s"] as? Double { #expect(held < 10, "dropped only after \(held) s") }
        try ownerComesBack(phone, unit, server: server, since: mark, alreadyBack: true)
    }

    /// The driver opens pairing mode; a stranger tries to pair 20 times (a
    /// Pairing Request and a public key: a passkey on screen each time), each
    /// time from a new address: the attempts are limited, the console answers,
    /// and the owner still gets in with her keys.
    @Test func pairingFlood() throws {
        let (phone, unit, server, _) = try ownerAway("hostile-flood")
        defer { unit.stop(); phone.stop() }
        unit.type("pair")
        #expect(settings.accessory(unit, "pairing") != nil)
        try addStranger(phone)
        let count = 20
        let flood = try phone.command("hostile_flood", ["name": "mallory", "count": count, "wait": 1], timeout: 180)
        print("pairing flood: \(flood)")
        let connected = flood["connected"] as? Int ?? 0
        let answered = flood["pairing_responses"] as? Int ?? 0
        #expect(connected > 0, "the stranger never got a link in pairing mode: \(flood)")
        // At most six pairings start in any minute, from all addresses together
        // (PairingAttemptLimiter); the flood takes well under a minute.
        #expect(answered <= 6, "\(answered) of \(count) pairing attempts were taken: not rate-limited in total (\(flood))")
        #expect(statusAnswers(unit), "the console does not answer status after the flood")
        // The window the driver opened is not the owner's way back: close it first.
        Thread.sleep(forTimeInterval: 1)
        let mark = unit.allEvents.count
        try phone.command("remove_hostile", ["name": "mallory"])
        try phone.command("rotate_address", ["phone": "anna"])
        try phone.command("in_range", ["phone": "anna"])
        let again = unit.waitFor("encrypted", timeout: 30) { $0["server"] as? String == server }
        #expect(again?["bonded"] as? Bool == true, "the owner did not get back in with her keys after the flood")
        #expect(unit.allEvents.dropFirst(mark).filter { $0["event"] as? String == "paired" }.isEmpty)
        #expect(bondFiles(unit).count == 1, "bonds after the flood: \(bondFiles(unit))")
    }
}
