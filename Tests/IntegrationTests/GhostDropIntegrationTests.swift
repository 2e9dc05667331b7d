import Foundation
import Testing

/// A file from the driver's phone over GhostDrop (issue 23): the simulated
/// phone's GhostDrop sender (Tests/Phone/phone/ghostdrop_l2cap.py) opens
/// the head unit's channel after pairing from Settings, the driver confirms
/// the code on the console, and the file arrives whole in the state directory.
@Suite(.serialized) struct GhostDropIntegrationTests {
    let settings = SettingsPairingIntegrationTests()
    let channel = CreditBasedChannelIntegrationTests()

    @Test func aFileFromThePhoneArrivesWholeOnceTheCodeIsConfirmed() throws {
        let (phone, unit, _) = try settings.pairedStockPhone("ghostdrop")
        defer { phone.stop(); unit.stop() }
        let spsm = try channel.publishedSPSM(unit)

        let started = try phone.command("ghostdrop_send", ["phone": "anna", "psm": spsm, "size": 1500, "filename": "headunit.conf"])
        #expect(started["size"] as? Int == 1500, "\(started)")

        // The same six digits on both sides; the driver confirms on the console.
        let shown = try #require(unit.waitFor("ghostdrop", timeout: 30) { $0["state"] as? String == "code" }?["code"] as? String)
        let phoneCode = phone.waitFor("ghostdrop_code", timeout: 30) { $0["phone"] as? String == "anna" }?["code"] as? String
        #expect(shown.count == 6 && shown == phoneCode)
        unit.type("confirm")
        #expect(unit.console.find(timeout: 10) { $0.contains("codes match: sent") } != nil)

        let incoming = unit.waitFor("ghostdrop", timeout: 30) { $0["state"] as? String == "incoming" }
        #expect(incoming?["filename"] as? String == "headunit.conf" && incoming?["size"] as? Int == 1500 && incoming?["start_offset"] as? Int == 0)
        let complete = unit.waitFor("ghostdrop", timeout: 60) { $0["state"] as? String == "complete" }
        #expect(complete?["size"] as? Int == 1500)
        let done = phone.waitFor("ghostdrop_done", timeout: 30) { $0["phone"] as? String == "anna" }
        #expect(done?["completed"] as? Bool == true, "\(String(describing: done))")

        let received = try Data(contentsOf: unit.stateDirectory.appendingPathComponent("received-headunit.conf"))
        // The phone's pattern: byte i is i * 7 mod 256.
        #expect(Array(received) == (0..<1500).map { UInt8(truncatingIfNeeded: $0 * 7) })
        #expect(!FileManager.default.fileExists(atPath: unit.stateDirectory.appendingPathComponent("ghostdrop-resume").path))
        // The pattern is no configuration: parsed, refused, not applied.
        #expect(unit.console.find(timeout: 10) { $0.hasPrefix("config: refused ") && $0.hasSuffix("not applied, the configuration in use stays") } != nil)
    }

    /// One transfer from the paired phone, the code confirmed on the
    /// console: how it ended on the phone.
    func send(_ phone: PhoneSimulator, _ unit: RunningHeadUnit, spsm: Int, _ arguments: [String: Any]) throws -> [String: Any]? {
        _ = try phone.command("ghostdrop_send", ["phone": "anna", "psm": spsm].merging(arguments) { $1 })
        #expect(unit.waitFor("ghostdrop", timeout: 30) { $0["state"] as? String == "code" } != nil)
        unit.type("confirm")
        return phone.waitFor("ghostdrop_done", timeout: 60) { $0["phone"] as? String == "anna" }
    }

    /// Only update bundles and headunit.conf are taken: anything else is
    /// refused when it is offered, a `.hubundle` that is none when its
    /// header arrives, each with the reason the phone shows and nothing
    /// left in the state directory; what is taken is handed on (off the
    /// image there is no installer, which the console says).
    @Test func onlyBundlesAndAValidHeadunitConfAreTakenAndHandedOn() throws {
        let (phone, unit, _) = try settings.pairedStockPhone("ghostdrop-accept")
        defer { phone.stop(); unit.stop() }
        let spsm = try channel.publishedSPSM(unit)
        let state = unit.stateDirectory
        func leftovers() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: state.path)) ?? []).filter { $0.hasPrefix("ghostdrop-") || $0.hasPrefix("received-") }.sorted()
        }

        let other = try send(phone, unit, spsm: spsm, ["size": 1500, "filename": "notes.txt"])
        #expect(other?["completed"] as? Bool == false && other?["cancel_reason"] as? String == "only update bundles and headunit.conf are accepted",
                "\(String(describing: other))")
        #expect(leftovers() == [])

        let junk = try send(phone, unit, spsm: spsm, ["size": 1500, "filename": "junk.hubundle"])
        #expect((junk?["cancel_reason"] as? String)?.hasPrefix("Not an update bundle: not an update bundle") == true, "\(String(describing: junk))")
        #expect(leftovers() == [])

        let files = FileManager.default.temporaryDirectory.appendingPathComponent("ghostdrop-accept-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: files, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: files) }
        let conf = files.appendingPathComponent("headunit.conf")
        try Data("[display]\nrotation = 180\n".utf8).write(to: conf)
        let sent = try send(phone, unit, spsm: spsm, ["path": conf.path])
        #expect(sent?["completed"] as? Bool == true, "\(String(describing: sent))")
        #expect(unit.console.find(timeout: 10) { $0.contains("received-headunit.conf is valid; this system has no configuration installer") } != nil)

        // A bundle's header (the signature is the installer's to check).
        let bundle = files.appendingPathComponent("next.hubundle")
        try Data(Array("NNBUNDLE".utf8) + [1, 0, 0, 0, 100, 0, 0, 0] + [UInt8](repeating: 0x41, count: 3000)).write(to: bundle)
        let bundled = try send(phone, unit, spsm: spsm, ["path": bundle.path])
        #expect(bundled?["completed"] as? Bool == true, "\(String(describing: bundled))")
        #expect(unit.console.find(timeout: 10) { $0.hasPrefix("update: this system has no installer") } != nil)
        #expect(leftovers() == ["received-headunit.conf", "received-next.hubundle"])
    }

    /// The phone stops after three chunks (540 bytes); the head unit keeps
    /// them and the resume state, starts again from its state directory,
    /// the bonded phone comes back and sends the same file again: it
    /// continues after the third chunk and arrives whole.
    @Test func aTransferBrokenOffResumesAfterAHeadUnitRestart() throws {
        let (phone, first, server) = try settings.pairedStockPhone("ghostdrop-restart")
        defer { first.stop(); phone.stop() }
        try startConfirmed(phone, first, ["stop_after": 3])
        let cut = first.waitFor("ghostdrop", timeout: 30) { $0["state"] as? String == "cancelled" }
        #expect(cut?["resumable"] as? Bool == true, "\(String(describing: cut))")
        #expect(phone.waitFor("ghostdrop_done", timeout: 30)?["completed"] as? Bool == false)
        let state = first.stateDirectory
        let held = try Data(contentsOf: state.appendingPathComponent("ghostdrop-incoming"))
        #expect(held.count == 540)
        #expect(FileManager.default.fileExists(atPath: state.appendingPathComponent("ghostdrop-resume").path))
        first.stop()
        try restartAndResume(phone, state: state, server: server, name: "ghostdrop-restart-2")
    }

    /// The phone holds after three chunks with the channel open, as an
    /// app suspended mid-transfer does; the head unit gets SIGTERM, as
    /// before a reboot, while the link is up: the resume state it leaves
    /// says three chunks (not the session's first, the last written before
    /// the next 64 KiB), and once started again the bonded phone's second
    /// send continues at byte 540.
    @Test func aHeadUnitStoppedMidTransferResumesAtTheLastConfirmedChunk() throws {
        let (phone, first, server) = try settings.pairedStockPhone("ghostdrop-sigterm")
        defer { first.stop(); phone.stop() }
        try startConfirmed(phone, first, ["hold_after": 3])
        let state = first.stateDirectory
        let incoming = state.appendingPathComponent("ghostdrop-incoming")
        let deadline = Date().addingTimeInterval(30)
        while ((try? Data(contentsOf: incoming))?.count ?? 0) < 540 && Date() < deadline { usleep(50_000) }
        #expect((try? Data(contentsOf: incoming))?.count == 540)
        kill(first.process.processIdentifier, SIGTERM)
        first.process.waitUntilExit()
        #expect(first.process.terminationStatus == 0)
        let resume = try JSONSerialization.jsonObject(with: Data(contentsOf: state.appendingPathComponent("ghostdrop-resume")))
        #expect((resume as? [String: Any])?["nextSequence"] as? Int == 3, "\(resume)")
        // The holding sender tells of the link's end when it notices, which
        // may be late: the check of the second send below skips it.
        try restartAndResume(phone, state: state, server: server, name: "ghostdrop-sigterm-2")
    }

    /// The paired phone starts sending 1500 bytes (with `arguments`) and
    /// the driver confirms the code on the console.
    func startConfirmed(_ phone: PhoneSimulator, _ unit: RunningHeadUnit, _ arguments: [String: Any]) throws {
        let spsm = try channel.publishedSPSM(unit)
        _ = try phone.command("ghostdrop_send", ["phone": "anna", "psm": spsm, "size": 1500].merging(arguments) { $1 })
        #expect(unit.waitFor("ghostdrop", timeout: 30) { $0["state"] as? String == "code" } != nil)
        unit.type("confirm")
    }

    /// The head unit starts again on `state`; the bonded phone comes back
    /// and sends its file again, which continues after three chunks.
    func restartAndResume(_ phone: PhoneSimulator, state: URL, server: String, name: String) throws {
        let unit = try RunningHeadUnit(hci: phone.hciSpec, stateDirectory: state, name: name)
        defer { unit.stop() }
        #expect(unit.waitFor("encrypted", timeout: 60) { $0["server"] as? String == server }?["bonded"] as? Bool == true,
                "the bonded phone did not come back")
        let again = try phone.command("ghostdrop_send", ["phone": "anna", "psm": try channel.publishedSPSM(unit), "again": true])
        #expect(again["size"] as? Int == 1500, "\(again)")
        try Self.resumedAfterThreeChunks(unit, phone)
    }

    /// The phone sent its 1500 bytes again after three chunks were held:
    /// the driver confirms the code, the transfer continues at byte 540
    /// and the file arrives whole.
    static func resumedAfterThreeChunks(_ unit: RunningHeadUnit, _ phone: PhoneSimulator) throws {
        #expect(unit.waitFor("ghostdrop", timeout: 30) { $0["state"] as? String == "code" } != nil)
        unit.type("confirm")
        let incoming = unit.waitFor("ghostdrop", timeout: 30) { $0["state"] as? String == "incoming" }
        #expect(incoming?["start_offset"] as? Int == 540, "\(String(describing: incoming))")
        #expect(unit.waitFor("ghostdrop", timeout: 60) { $0["state"] as? String == "complete" } != nil)
        // Not the end of a send that held until the link went: it may come late.
        let done = phone.waitFor("ghostdrop_done", timeout: 30) {
            $0["cancel_reason"] as? String != "the link went while the sender held"
        }
        #expect(done?["completed"] as? Bool == true && done?["resumed_from"] as? Int == 3, "\(String(describing: done))")
        let received = try Data(contentsOf: unit.stateDirectory.appendingPathComponent("received-headunit.conf"))
        #expect(Array(received) == (0..<1500).map { UInt8(truncatingIfNeeded: $0 * 7) })
    }
}
