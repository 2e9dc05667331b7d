// Fault scenarios: what goes wrong in a car, injected into the simulated
// phone and radio (Tests/Phone/phone/faults.py). After every fault the head
// unit must come back to a working state by itself: connected and encrypted
// again, a Maps instruction sent by the phone shown, the console answering
// quickly, the process alive, and no HCI contract broken.
//
// | fault                                      | test                                                                          |
// | ------------------------------------------ | ----------------------------------------------------------------------------- |
// | controller Hardware Error                  | FaultScenarioTests.hardwareErrorResetsTheControllerAndTheLinkComesBack        |
// | HCI transport closed and back (TCP, UART)  | FaultScenarioTests.transportLostAndBackReopensAndReconnects                   |
// | link loss mid Data Source response         | FaultScenarioTests.linkLossInTheMiddleOfADataSourceResponse                   |
// | link loss mid pairing (between SMP PDUs)   | FaultScenarioTests.linkLossInTheMiddleOfPairing                               |
// | ATT transaction timeout                    | ATTTimeoutFaultTests.attTransactionTimeoutEndsTheLinkAndItComesBack           |
// | the phone forgets the bond                 | SecurityIntegrationTests.phoneThatForgotTheBondIsPairedAgain                  |
// | the phone reboots (new address)            | SecurityIntegrationTests.reconnectsWithStoredKeysAfterTheAddressRotates,      |
// |                                            | PairingRoutineIntegrationTests.reconnectsAfterLinkLossAndAfterTheAddressRotates |
// | Share System Notifications off             | NotificationsIntegrationTests.sharingOffOnThePhoneIsShownAsAHint (off from    |
// |                                            | the start), FaultScenarioTests.sharingSwitchedOffAndOnAgainInTheMiddleOfADrive |
// | subscriptions silently dropped             | NotificationsIntegrationTests.silentlyDroppedSubscriptionsAreRecoveredByTheLivenessProbe |
// | Notification Source pushes stop, the       | FaultScenarioTests.notificationSourcePushesStoppedAreBroughtBackByRewritingTheSubscriptions |
// | Control Point still answers                |                                                                               |
// | a second phone trying to take over         | FaultScenarioTests.secondPhoneCannotTakeOverThePairing,                       |
// |                                            | SecurityIntegrationTests.bondedPhoneIsRecognisedByItsIRKBeforeConnecting      |
// | a second head unit trying to take over     | FaultScenarioTests.secondHeadUnitCannotTakeOverThePhone,                      |
// |                                            | PairingRoutineIntegrationTests.phonePairedWithAnotherClientIsRefusedAndAnAvailableOneChosen |
// | advertising flood (malformed included)     | FaultScenarioTests.advertisingFloodLeavesTheHeadUnitResponsive                |
//
// The faults and what the head unit does about each: docs/ROBUSTNESS.md, "Faults".

import Foundation
import Testing

/// Every fault ends with the head unit working again (see the table above).
@Suite(.serialized) struct FaultScenarioTests {
    /// A lost link is noticed after 1 s instead of the 4 s supervision
    /// timeout the head unit asks for: the same events, sooner.
    static let simulatorArguments = ["--phone", "anna", "--link-loss-delay", "1"]

    /// A head unit paired (passkey typed) with phone `anna`, its ANCS session running.
    func pairedUnit(_ phone: PhoneSimulator, name: String, stateDirectory: URL? = nil, extra: [String] = []) throws -> RunningHeadUnit {
        let unit = try RunningHeadUnit(hci: phone.hciSpec, stateDirectory: stateDirectory, extra: extra, name: name)
        try typePasskey(shownBy: unit, into: phone)
        #expect(unit.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true)
        #expect(phone.waitFor("ancs_session", timeout: 30) { $0["state"] as? String == "started" } != nil)
        return unit
    }

    /// Runs `body` with a fresh simulator and a head unit paired with `anna`.
    func withPairedUnit(_ name: String, extra: [String] = [], _ body: (PhoneSimulator, RunningHeadUnit) throws -> Void) throws {
        let phone = try PhoneSimulator(arguments: Self.simulatorArguments)
        defer { phone.stop() }
        let unit = try pairedUnit(phone, name: name, extra: extra)
        defer { unit.stop() }
        try body(phone, unit)
    }

    func typePasskey(shownBy unit: RunningHeadUnit, into phone: PhoneSimulator) throws {
        let passkey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(phone.waitFor("passkey_requested", timeout: 30) != nil)
        try phone.command("type_passkey", ["phone": "anna", "digits": passkey])
    }

    /// Encrypted again with the stored keys, then working.
    func expectBack(_ unit: RunningHeadUnit, _ phone: PhoneSimulator, title: String,
                    sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(unit.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true, sourceLocation: sourceLocation)
        try expectWorking(unit, phone, title: title, sourceLocation: sourceLocation)
    }

    /// The working state: the console answers `status` quickly and reports
    /// an encrypted link to the phone, and a Maps instruction posted now is shown.
    func expectWorking(_ unit: RunningHeadUnit, _ phone: PhoneSimulator, title: String,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(unit.process.isRunning, "the head unit exited", sourceLocation: sourceLocation)
        let answered = statusLatency(unit) { $0.contains(", encrypted, ATT_MTU") }
        #expect(answered != nil, "status shows no encrypted link", sourceLocation: sourceLocation)
        if let answered { #expect(answered < 2, "status took \(answered) s", sourceLocation: sourceLocation) }
        try phone.command("post_notification", ["phone": "anna", "app": "com.google.Maps", "category": "location",
                                                "title": title, "message": "Turn left onto Market Street"])
        let shown = shownNotification(unit, title: title)
        #expect(shown?["message"] as? String == "Turn left onto Market Street", "'\(title)' not shown", sourceLocation: sourceLocation)
        if shown == nil { dump(unit, phone) }
        expectNoViolations(phone, sourceLocation: sourceLocation)
    }

    /// The `shown` event of the notification titled `title` (unique within a
    /// test), waiting up to `timeout` for it.
    func shownNotification(_ unit: RunningHeadUnit, title: String, timeout: TimeInterval = 20) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            if let found = unit.allEvents.first(where: {
                $0["event"] as? String == "notification" && $0["action"] as? String == "shown" && $0["title"] as? String == title
            }) { return found }
            usleep(20_000)
        } while Date() < deadline && unit.process.isRunning
        return nil
    }

    /// What a failing test needs to be understood from a CI log.
    func dump(_ unit: RunningHeadUnit, _ phone: PhoneSimulator) {
        print("head unit log:\n" + unit.stderr.all.suffix(80).joined(separator: "\n"))
        print("head unit events:\n" + unit.allEvents.suffix(20).map { "\($0)" }.joined(separator: "\n"))
        print("phone events:\n" + phone.events.all.suffix(60).joined(separator: "\n"))
    }

    /// Seconds until the console answered `status` with a line matching
    /// `match` (nil: not within 10 s).
    func statusLatency(_ unit: RunningHeadUnit, match: @escaping (String) -> Bool = { $0.hasPrefix("state: ") }) -> TimeInterval? {
        let start = Date()
        unit.type("status")
        guard unit.console.next(timeout: 10, where: match) != nil else { return nil }
        return Date().timeIntervalSince(start)
    }

    func expectNoViolations(_ phone: PhoneSimulator, sourceLocation: SourceLocation = #_sourceLocation) {
        let violations = phone.events.all.filter { $0.contains("\"hci_violation\"") }
        #expect(violations.isEmpty, "HCI contract broken: \(violations.prefix(3))", sourceLocation: sourceLocation)
    }

    /// Resident memory of a process in KiB (VmRSS).
    func residentKiB(_ process: Process) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return Int(line.split(separator: " ").dropFirst().first ?? "")
    }

    func phoneEvents(_ phone: PhoneSimulator, _ name: String) -> [[String: Any]] {
        phone.events.all.compactMap(PhoneSimulator.parse).filter { $0["event"] as? String == name }
    }

    // MARK: - Controller and transport

    @Test func hardwareErrorResetsTheControllerAndTheLinkComesBack() throws {
        try withPairedUnit("fault-hwerror") { phone, unit in
            try phone.command("hardware_error", ["code": 0x42])
            let reported = unit.waitFor("error", timeout: 10) { $0["what"] as? String == "controller" }
            #expect((reported?["detail"] as? String)?.contains("Hardware Error 0x42") == true)
            // The reset controller forgot the link; the phone notices, the head
            // unit finds it again and encrypts with the stored keys.
            #expect(phone.waitFor("disconnected", timeout: 15) != nil)
            #expect(unit.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true)
            #expect(unit.allEvents.filter { $0["event"] as? String == "paired" }.count == 1)
            try expectWorking(unit, phone, title: "After the hardware error")
        }
    }

    @Test func transportLostAndBackReopensAndReconnects() throws {
        try withPairedUnit("fault-transport") { phone, unit in
            // The controller is gone for 3 s: every reconnect attempt is refused.
            try phone.command("hci_unplug", ["seconds": 3])
            #expect(phone.waitFor("hci_client", timeout: 5) { $0["state"] as? String == "disconnected" } != nil)
            #expect(unit.waitForState("remembered", timeout: 10))
            // Meanwhile the head unit keeps running and answering.
            let latency = statusLatency(unit) { $0.hasPrefix("controller: not ready") }
            #expect((latency ?? 99) < 2, "status without a controller: \(String(describing: latency))")
            #expect(phone.waitFor("fault", timeout: 10) { $0["state"] as? String == "plugged" } != nil)
            #expect(phone.waitFor("hci_client", timeout: 15) { $0["state"] as? String == "connected" } != nil)
            try expectBack(unit, phone, title: "After the transport came back")
        }
    }

    // MARK: - Link loss

    @Test func linkLossInTheMiddleOfADataSourceResponse() throws {
        try withPairedUnit("fault-midresponse") { phone, unit in
            // A message long enough for the response to take two notifications
            // at ATT_MTU 247; the link dies after the first.
            let message = String(repeating: "Continue on Market Street past the old harbour. ", count: 5)
            try phone.command("lose_link_mid_response", ["phone": "anna", "after_fragments": 1])
            try phone.command("post_notification", ["phone": "anna", "app": "com.google.Maps", "category": "location",
                                                    "title": "In 800 m", "message": message])
            let cut = phone.waitFor("fault", timeout: 10) { $0["fault"] as? String == "lose_link_mid_response" }
            #expect(cut?["fragments"] as? Int == 1 && (cut?["of"] as? Int ?? 0) >= 2, "\(String(describing: cut))")
            #expect(unit.waitForState("remembered", timeout: 10))
            let early = unit.allEvents.filter { $0["event"] as? String == "notification" }
            #expect(early.isEmpty, "a notification was shown from half a response: \(early)")
            try phone.command("in_range", ["phone": "anna"])
            #expect(unit.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true)
            // The instruction comes again as PreExisting and is fetched whole.
            let shown = shownNotification(unit, title: "In 800 m")
            #expect((shown?["message"] as? String).map { message.hasPrefix($0) && $0.count >= 200 } == true,
                    "message after the reconnection: \(String(describing: shown?["message"]))")
            try expectWorking(unit, phone, title: "After the response was cut")
        }
    }

    @Test func linkLossInTheMiddleOfPairing() throws {
        let phone = try PhoneSimulator(arguments: Self.simulatorArguments)
        defer { phone.stop() }
        // The head unit's public key arrives and the phone is gone.
        try phone.command("lose_link_on_smp", ["phone": "anna", "code": "pairing_public_key"])
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: "fault-midpairing")
        defer { unit.stop() }
        #expect(phone.waitFor("fault", timeout: 30) { $0["fault"] as? String == "lose_link_on_smp" } != nil)
        #expect(unit.waitForState("remembered", timeout: 10))
        #expect(unit.process.isRunning)
        try phone.command("in_range", ["phone": "anna"])
        try typePasskey(shownBy: unit, into: phone)
        #expect(unit.waitFor("paired", timeout: 30) != nil)
        #expect(unit.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true)
        let bonds = try FileManager.default.contentsOfDirectory(atPath: unit.stateDirectory.path).filter { $0.hasPrefix("bond-") && !$0.hasSuffix(".tmp") }
        #expect(bonds.count == 1)
        try expectWorking(unit, phone, title: "After the interrupted pairing")
    }

    // MARK: - ATT

    /// Run by `ATTTimeoutFaultTests`.
    func attTransactionTimeoutEndsTheLinkAndItComesBack() throws {
        try withPairedUnit("fault-atttimeout") { phone, unit in
            // The session's opening probe is answered (0xA2: no such notification).
            #expect(phone.waitFor("ancs_request", timeout: 10) { $0["uid"] as? Int == 0xFFFF_FFFF && $0["result"] as? String == "0xA2" } != nil)
            // The phone's ATT server stops answering: the Control Point write for
            // the next notification never gets its Write Response.
            try phone.command("stall_att", ["phone": "anna"])
            let stalledAt = Date()
            try phone.command("post_notification", ["phone": "anna", "app": "com.google.Maps", "category": "location",
                                                    "title": "In 2 km", "message": "Keep right"])
            #expect(phone.waitFor("fault", timeout: 10) { $0["state"] as? String == "ignored" } != nil)
            // Core spec Vol 3, Part F, 3.3.3: 30 s without a response ends the
            // bearer; the head unit ends the link.
            let ended = phone.waitFor("disconnected", timeout: 45)
            let waited = Date().timeIntervalSince(stalledAt)
            #expect(ended?["reason"] as? Int == 0x13, "link end: \(String(describing: ended))")
            #expect(waited >= 29 && waited < 40, "link ended after \(waited) s")
            #expect(unit.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true)
            let shown = shownNotification(unit, title: "In 2 km")
            #expect(shown != nil, "the stalled notification did not come back as PreExisting")
            if shown == nil { dump(unit, phone) }
            try expectWorking(unit, phone, title: "After the ATT timeout")
        }
    }

    // MARK: - ANCS

    @Test func sharingSwitchedOffAndOnAgainInTheMiddleOfADrive() throws {
        try withPairedUnit("fault-sharing") { phone, unit in
            try expectWorking(unit, phone, title: "Before sharing went off")
            try phone.command("set_sharing", ["phone": "anna", "on": false])
            try phone.command("post_notification", ["phone": "anna", "app": "com.google.Maps", "category": "location",
                                                    "title": "While not shared", "message": "Turn right"])
            #expect(unit.waitFor("notification", timeout: 3) { $0["title"] as? String == "While not shared" } == nil)
            try phone.command("set_sharing", ["phone": "anna", "on": true])
            // A new session: what the phone holds arrives as PreExisting.
            #expect(shownNotification(unit, title: "While not shared") != nil)
            try expectWorking(unit, phone, title: "After sharing came back")
        }
    }

    /// The phone keeps answering the liveness probe but pushes nothing on
    /// the Notification Source: only the silence beside the answered probes
    /// gives it away, and writing the CCCDs again brings the pushes back.
    @Test func notificationSourcePushesStoppedAreBroughtBackByRewritingTheSubscriptions() throws {
        // The shortest probe interval and silence limit the configuration allows.
        let config = Paths.temporaryDirectory("fault-nssilence-config").appendingPathComponent("headunit.conf")
        try "[bluetooth]\nprobe-interval = 30s\nnotification-silence = 30s\n".write(to: config, atomically: true, encoding: .utf8)
        try withPairedUnit("fault-nssilence", extra: ["--config", config.path]) { phone, unit in
            try expectWorking(unit, phone, title: "Before the pushes stopped")
            try phone.command("stop_notification_source", ["phone": "anna"])
            try phone.command("post_notification", ["phone": "anna", "app": "com.google.Maps", "category": "location",
                                                    "title": "While nothing is pushed", "message": "Keep left"])
            let withheld = phone.waitFor("fault", timeout: 10) { $0["state"] as? String == "withheld" }
            #expect(withheld?["event_name"] as? String == "added", "\(String(describing: withheld))")
            // The phone answers the probe as a healthy one does...
            let probe = phone.waitFor("ancs_request", timeout: 45) { $0["uid"] as? Int == 0xFFFF_FFFF }
            #expect(probe?["result"] as? String == "0xA2", "probe: \(String(describing: probe))")
            // ...and the head unit, hearing nothing new beside it, writes the
            // Notification Source CCCD again (then the Data Source's, then both on).
            let recovered = phone.waitFor("fault", timeout: 45) { $0["state"] as? String == "recovered" }
            #expect(recovered?["enabled"] as? Bool == false, "\(String(describing: recovered))")
            let session = phone.waitFor("ancs_session", timeout: 20) { $0["state"] as? String == "started" }
            #expect(session?["reason"] as? String == "subscribed", "\(String(describing: session))")
            // The replay brings what was missed; new notifications are pushed again.
            let shown = shownNotification(unit, title: "While nothing is pushed")
            #expect(shown?["message"] as? String == "Keep left")
            if shown == nil { dump(unit, phone) }
            try expectWorking(unit, phone, title: "After the subscriptions were written again")
        }
    }

    // MARK: - One-to-one pairing

    @Test func secondPhoneCannotTakeOverThePairing() throws {
        try withPairedUnit("fault-secondphone") { phone, unit in
            let anna = try phone.command("state", ["phone": "anna"])
            let serverName = try #require(anna["server_name"] as? String)
            let clientName = try #require(anna["paired_client"] as? String)
            // While Anna's phone is away, an impostor advertises her SERVER NAME and
            // claims to be paired with this head unit; another phone is free to pair.
            try phone.command("out_of_range", ["phone": "anna"])
            #expect(unit.waitForState("remembered", timeout: 10))
            try phone.command("add_phone", ["name": "eve", "server_name": serverName, "paired_client": clientName,
                                            "local_name": "iPhone (Anna)"])
            try phone.command("add_phone", ["name": "bob", "server_name": "Bob-iPhone"])
            Thread.sleep(forTimeInterval: 4)
            let strangers = phoneEvents(phone, "connected").filter { ["eve", "bob"].contains($0["phone"] as? String ?? "") }
            #expect(strangers.isEmpty, "connected to \(strangers)")
            try phone.command("in_range", ["phone": "anna"])
            #expect(unit.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true)
            #expect(unit.allEvents.filter { $0["event"] as? String == "paired" }.count == 1)
            #expect(try phone.command("state", ["phone": "bob"])["paired_client"] as? String == "UNPAIRED")
            try expectWorking(unit, phone, title: "Still Anna's head unit")
        }
    }

    @Test func secondHeadUnitCannotTakeOverThePhone() throws {
        let phone = try PhoneSimulator(arguments: Self.simulatorArguments)
        defer { phone.stop() }
        let first = try pairedUnit(phone, name: "fault-hu1")
        let firstName = try phone.command("state", ["phone": "anna"])["paired_client"] as? String
        first.stop()
        #expect(phone.waitFor("disconnected", timeout: 10) != nil)
        // Another head unit, never paired, meets Anna's phone: it reads who
        // the phone belongs to, leaves, and writes nothing.
        let mark = phone.events.all.count
        let second = try RunningHeadUnit(hci: phone.hciSpec, name: "fault-hu2")
        #expect(phone.waitFor("gatt_read", timeout: 30) { $0["characteristic"] as? String == "paired_client_name" } != nil)
        #expect(phone.waitFor("disconnected", timeout: 10) != nil)
        #expect(second.waitFor("passkey", timeout: 2) == nil)
        second.stop()
        #expect(!phone.events.all.dropFirst(mark).contains { $0.contains("\"gatt_write\"") })
        #expect(try phone.command("state", ["phone": "anna"])["paired_client"] as? String == firstName)
        // The first head unit comes back to its phone with the stored keys.
        let again = try RunningHeadUnit(hci: phone.hciSpec, stateDirectory: first.stateDirectory, name: "fault-hu1-again")
        defer { again.stop() }
        #expect(again.waitFor("encrypted", timeout: 30)?["bonded"] as? Bool == true)
        #expect(again.waitFor("passkey", timeout: 1) == nil)
        try expectWorking(again, phone, title: "Back with the first head unit")
    }

    // MARK: - Radio

    @Test func advertisingFloodLeavesTheHeadUnitResponsive() throws {
        try withPairedUnit("fault-flood") { phone, unit in
            // 3000 reports a second, 30 % malformed, passed up even while the
            // head unit does not scan (the worst a controller could do).
            try phone.command("flood_advertising", ["rate": 3000, "seconds": 60, "malformed": 0.3, "while_scanning": false])
            var worst: TimeInterval = 0
            func measureStatus(_ times: Int) {
                for _ in 0..<times {
                    Thread.sleep(forTimeInterval: 0.5)
                    let latency = statusLatency(unit)
                    #expect(latency != nil, "status unanswered during the flood")
                    worst = max(worst, latency ?? 99)
                }
            }
            // Connected: notifications still come through, the console answers.
            measureStatus(3)
            try expectWorking(unit, phone, title: "Connected through the flood")
            // Scanning for the phone, through the flood.
            let rssBefore = try #require(residentKiB(unit.process), "VmRSS unreadable in /proc")
            let logLinesBefore = unit.stderr.all.count
            try phone.command("out_of_range", ["phone": "anna"])
            #expect(unit.waitForState("remembered", timeout: 10))
            measureStatus(8)
            // Made-up advertisers are not kept without end, and malformed
            // packets are logged a few at a time, not one line each.
            let rssAfter = try #require(residentKiB(unit.process), "VmRSS unreadable in /proc")
            let logLines = unit.stderr.all.count - logLinesBefore
            #expect(rssAfter - rssBefore < 1024, "resident memory grew from \(rssBefore) to \(rssAfter) KiB while scanning")
            #expect(logLines < 50, "\(logLines) log lines while scanning through the flood")
            try phone.command("in_range", ["phone": "anna"])
            try expectBack(unit, phone, title: "Found again through the flood")
            try phone.command("stop_flood")
            let ended = phone.waitFor("fault", timeout: 10) { $0["fault"] as? String == "flood_advertising" && $0["state"] as? String == "ended" }
            let reports = ended?["reports"] as? Int ?? 0
            print("flood: \(reports) reports; status answered within \(worst) s at worst; resident memory \(rssBefore) KiB, then \(rssAfter) KiB after scanning through it; \(logLines) log lines")
            #expect(worst < 2, "status took \(worst) s during the flood")
            #expect(reports >= 10_000, "only \(reports) reports reached the head unit")
            #expect(unit.process.isRunning)
        }
    }
}

/// The ATT timeout waits the 30 s the specification gives before the link is
/// ended; in a suite of its own it runs beside the other faults, not after them.
@Suite struct ATTTimeoutFaultTests {
    @Test func attTransactionTimeoutEndsTheLinkAndItComesBack() throws {
        try FaultScenarioTests().attTransactionTimeoutEndsTheLinkAndItComesBack()
    }
}
