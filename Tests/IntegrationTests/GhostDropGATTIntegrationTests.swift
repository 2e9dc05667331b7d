import Foundation
import Testing

/// GhostDrop's GATT fallback end to end: the simulated phone, told not to
/// use the L2CAP channel, sends over the head unit's GhostDrop service
/// (Tests/Phone/phone/ghostdrop_gatt.py: GD fragments, the reference's
/// sliding window, NACKs and retransmission); the driver confirms the code
/// on the console and the file arrives whole in the state directory.
@Suite(.serialized) struct GhostDropGATTIntegrationTests {
    let settings = SettingsPairingIntegrationTests()
    let channel = CreditBasedChannelIntegrationTests()
    /// The phone's pattern: byte i is i * 7 mod 256.
    static func pattern(_ size: Int) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: $0 * 7) } }

    /// Chunk 3's first copy loses a fragment: the head unit holds chunk 4
    /// behind the gap, its ack NACKs 3, the phone sends 3 again.
    @Test func aFileOverGATTArrivesWholeWithALostFragmentNACKedAndSentAgain() throws {
        let (phone, unit, _) = try settings.pairedStockPhone("ghostdrop-gatt")
        defer { phone.stop(); unit.stop() }
        let spsm = try channel.publishedSPSM(unit)

        _ = try phone.command("ghostdrop_send", ["phone": "anna", "l2cap": false, "size": 1500, "drop": [3]])
        let shown = try #require(unit.waitFor("ghostdrop", timeout: 30) { $0["state"] as? String == "code" }?["code"] as? String)
        let phoneCode = phone.waitFor("ghostdrop_code", timeout: 30) { $0["phone"] as? String == "anna" }?["code"] as? String
        #expect(shown.count == 6 && shown == phoneCode)
        unit.type("confirm")

        let incoming = unit.waitFor("ghostdrop", timeout: 30) { $0["state"] as? String == "incoming" }
        #expect(incoming?["size"] as? Int == 1500 && incoming?["start_offset"] as? Int == 0, "\(String(describing: incoming))")
        #expect(unit.waitFor("ghostdrop", timeout: 60) { $0["state"] as? String == "complete" } != nil)
        let done = try #require(phone.waitFor("ghostdrop_done", timeout: 30) { $0["phone"] as? String == "anna" })
        #expect(done["completed"] as? Bool == true && done["transport"] as? String == "gatt", "\(done)")
        #expect((done["nacked"] as? [Int])?.contains(3) == true, "\(done)")
        #expect((done["retransmitted"] as? [Int])?.contains(3) == true, "\(done)")
        // The capabilities characteristic names the channel the phone did not use.
        let capabilities = try #require((done["capabilities"] as? String)?.data(using: .utf8))
        let json = try #require(try JSONSerialization.jsonObject(with: capabilities) as? [String: Any])
        #expect(json["psm"] as? Int == spsm, "\(json)")

        let received = try Data(contentsOf: unit.stateDirectory.appendingPathComponent("received-headunit.conf"))
        #expect(Array(received) == Self.pattern(1500))
        #expect(unit.stderr.find(timeout: 1) { $0.contains("started over GATT") } != nil)
    }

    /// The phone stops after three chunks (540 bytes) and later sends the
    /// same file again on the same link: its new `hello` ends the first
    /// session as a disconnect would, and the second continues at byte 540.
    @Test func aTransferOverGATTBrokenOffResumes() throws {
        let (phone, unit, _) = try settings.pairedStockPhone("ghostdrop-gatt-resume")
        defer { phone.stop(); unit.stop() }
        _ = try phone.command("ghostdrop_send", ["phone": "anna", "l2cap": false, "size": 1500, "stop_after": 3])
        #expect(unit.waitFor("ghostdrop", timeout: 30) { $0["state"] as? String == "code" } != nil)
        unit.type("confirm")
        let first = phone.waitFor("ghostdrop_done", timeout: 30)
        #expect(first?["completed"] as? Bool == false, "\(String(describing: first))")

        _ = try phone.command("ghostdrop_send", ["phone": "anna", "l2cap": false, "again": true])
        let cut = unit.waitFor("ghostdrop", timeout: 30) { $0["state"] as? String == "cancelled" }
        #expect(cut?["resumable"] as? Bool == true, "\(String(describing: cut))")
        try GhostDropIntegrationTests.resumedAfterThreeChunks(unit, phone)
    }
}
