import Foundation
import Testing

/// GhostDrop's L2CAP channel against Bumble's own LE credit based channels
/// (issue 23): the head unit publishes a dynamic SPSM with encryption
/// required; a stock iPhone paired from Settings opens a channel to it and
/// sends SDUs larger than the head unit's MPS, more K-frames than its first
/// grant of credits; a phone on an unencrypted link is refused.
@Suite(.serialized) struct CreditBasedChannelIntegrationTests {
    let settings = SettingsPairingIntegrationTests()

    /// The SPSM the head unit's log says it published for GhostDrop.
    func publishedSPSM(_ unit: RunningHeadUnit) throws -> Int {
        let line = try #require(unit.stderr.find(timeout: 20) { $0.contains("published for GhostDrop") }, "no SPSM published")
        let hex = try #require(line.components(separatedBy: "SPSM 0x").last?.prefix(4))
        return try #require(Int(hex, radix: 16))
    }

    @Test func aPairedPhoneOpensGhostDropsChannelAndSendsSDUsLargerThanTheMPS() throws {
        let phone = try PhoneSimulator(name: "coc")
        defer { phone.stop() }
        try settings.addStockPhone(phone, "bob")
        try settings.addStockPhone(phone, "anna")
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: "coc")
        defer { unit.stop() }
        let spsm = try publishedSPSM(unit)
        #expect((0x80...0xFF).contains(spsm), "SPSM 0x\(String(spsm, radix: 16)) is not in the LE dynamic range")

        // Bob's phone holds an unencrypted link (it ignores the Security
        // Request) and tries the channel: refused, insufficient encryption.
        let name = try settings.listedHeadUnit(phone, on: "bob")
        let tapped = try phone.command("tap_accessory", ["phone": "bob", "name": name, "timeout": 10, "secure": false], timeout: 20)
        #expect(tapped["ok"] as? Bool == true, "\(tapped)")
        let refused = try phone.command("open_channel", ["phone": "bob", "psm": spsm])
        #expect(refused["ok"] as? Bool == false)
        #expect((refused["error"] as? String)?.hasSuffix("(0x0008)") == true, "not refused for insufficient encryption: \(refused)")
        try phone.command("power_off", ["phone": "bob"])

        // Anna pairs from Settings, then opens the channel: her MTU 2048,
        // MPS 100 (so the head unit's SDUs, when it sends any, are cut).
        try settings.pairFromSettings(phone, unit, as: "anna")
        let opened = try phone.command("open_channel", ["phone": "anna", "psm": spsm, "mtu": 2048, "mps": 100, "credits": 64])
        #expect(opened["ok"] as? Bool == true, "\(opened)")
        #expect(opened["peer_mtu"] as? Int == 2048 && opened["peer_mps"] as? Int == 247, "\(opened)")
        let grant = try #require(opened["credits"] as? Int)
        #expect(grant == 18, "the head unit grants two MTU-sized SDUs' worth of K-frames")
        #expect(unit.stderr.find(timeout: 10) { $0.contains("a sender opened SPSM 0x") } != nil)

        // Five SDUs of 1000 bytes (five K-frames each: 25 > 18 credits),
        // then one of the whole MTU: only the credits the head unit gives
        // back let them all go.
        let sent = try phone.command("channel_send", ["phone": "anna", "size": 1000, "count": 5], timeout: 30)
        #expect(sent["ok"] as? Bool == true, "\(sent)")
        let full = try phone.command("channel_send", ["phone": "anna", "size": 2048], timeout: 30)
        #expect(full["ok"] as? Bool == true, "\(full)")
        #expect((full["credits_received"] as? Int ?? 0) >= 25 + 9 - grant, "credits did not come back: \(full)")
        let last = unit.stderr.find(timeout: 10) { $0.contains("SDU 6 of 2048 bytes") }
        #expect(last?.contains("(7048 bytes in all)") == true, "the head unit did not take six whole SDUs: \(String(describing: last))")
        #expect(unit.stderr.all.filter { $0.contains("of 1000 bytes on SPSM") }.count == 5)
        // Too big for the head unit's MTU: Bumble itself refuses to send it.
        let tooBig = try phone.command("channel_send", ["phone": "anna", "size": 2049])
        #expect(tooBig["ok"] as? Bool == false)

        let closed = try phone.command("close_channel", ["phone": "anna"])
        #expect(closed["ok"] as? Bool == true, "\(closed)")
        #expect(unit.stderr.find(timeout: 10) { $0.contains("closed: the peer disconnected it") } != nil)

        // Wireshark decodes the channel: its signaling and its K-frames.
        unit.stop()
        let detail = try TShark.decode(unit.traceURL, verbose: true)
        #expect(detail.contains("LE Credit Based Connection Request"))
        #expect(detail.contains("LE Credit Based Connection Response"))
        #expect(detail.contains("Insufficient Encryption"), "the refusal's result is not decoded")
        #expect(detail.contains("LE Flow Control Credit"))
        // K-frames of 247 bytes on our CID; an SDU's first starts with its
        // length (1000 = e803, 2048 = 0008), then the phone's counting pattern.
        #expect(detail.contains("CID: Dynamically Allocated Channel (0x0040)") && detail.contains("Length: 247"))
        #expect(detail.contains("Payload: e803000102030405") && detail.contains("Payload: 0008000102030405"),
                "the K-frames are not decoded as the channel's")
        #expect(try TShark.decode(unit.traceURL).contains("Connection oriented channel"))
        #expect(detail.contains("Disconnection Request") && detail.contains("Disconnection Response"))
        #expect(!detail.lowercased().contains("malformed"), "tshark reports malformed packets")
        #expect(!detail.contains("Expert Info (Warning"), "tshark warnings")
    }
}
