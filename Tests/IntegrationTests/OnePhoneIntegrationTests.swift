import Foundation
import Testing

/// One phone at a time, end to end: both ways at once (docs/ARCHITECTURE.md,
/// "The core"). A stock iPhone taps the head unit in Settings and gets a
/// passkey; then the phone with the app is found and gets one too (the head
/// unit pairs it by its own choice). Both pair; the first encrypted is the
/// phone, and the second is told so and disconnected. (An iPhone that taps
/// while another phone's passkey is on screen is refused at once: one
/// pairing at a time, `OnePhoneTests`.)
@Suite(.serialized) struct OnePhoneIntegrationTests {
    let settings = SettingsPairingIntegrationTests()

    @Test func aSettingsIPhoneEncryptedAfterTheAppPhoneIsDisconnected() throws {
        let phone = try PhoneSimulator(arguments: ["--phone", "nina"], name: "one-phone")
        defer { phone.stop() }
        try settings.addStockPhone(phone, "sam")
        // Nina's Bluetooth is off until Sam has tapped the head unit.
        try phone.command("power_off", ["phone": "nina"])
        let unit = try RunningHeadUnit(hci: phone.hciSpec, name: "one-phone")
        defer { unit.stop() }
        // Sam taps the head unit in Settings; his passkey is on screen.
        let listed = try settings.listedHeadUnit(phone, on: "sam")
        let tapped = try phone.command("tap_accessory", ["phone": "sam", "name": listed, "timeout": 10], timeout: 20)
        #expect(tapped["ok"] as? Bool == true, "\(tapped)")
        let samPasskey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(phone.waitFor("passkey_requested", timeout: 30) { $0["phone"] as? String == "sam" } != nil)
        // Meanwhile Nina's app is found, and she gets a passkey too.
        try phone.command("power_on", ["phone": "nina"])
        let ninaPasskey = try #require(unit.waitFor("passkey", timeout: 30)?["passkey"] as? String)
        #expect(phone.waitFor("passkey_requested", timeout: 30) { $0["phone"] as? String == "nina" } != nil)

        // Nina types hers first: her phone is the phone.
        try phone.command("type_passkey", ["phone": "nina", "digits": ninaPasskey])
        let nina = try #require(unit.waitFor("encrypted", timeout: 30))
        let ninaServer = try #require(nina["server"] as? String)
        #expect(!ninaServer.hasPrefix("settings "), "\(nina)")
        // Then Sam: his pairing completes, and at encryption he is sent away.
        try phone.command("type_passkey", ["phone": "sam", "digits": samPasskey])
        let refused = unit.waitFor("error", timeout: 30) { $0["what"] as? String == "phone" }
        #expect(refused?["detail"] as? String == "another phone is already connected: one phone at a time")
        let gone = phone.waitFor("disconnected", timeout: 10) { $0["phone"] as? String == "sam" }
        #expect(gone?["reason"] as? Int == 0x14, "\(String(describing: gone))")
        let encrypted = unit.allEvents.filter { $0["event"] as? String == "encrypted" }.compactMap { $0["server"] as? String }
        #expect(encrypted == [ninaServer], "another link was reported encrypted: \(encrypted)")

        // Nina's phone goes on as if Sam had never been there.
        try phone.command("post_notification", ["phone": "nina", "app": "com.google.Maps", "category": "location",
                                                "title": "In 400 m", "message": "Turn left onto Park Road"])
        let shown = unit.waitFor("notification", timeout: 20) { $0["action"] as? String == "shown" }
        #expect(shown?["title"] as? String == "In 400 m")
        #expect(unit.allEvents.last { $0["event"] as? String == "state" }?["state"] as? String == "connected")
        #expect(unit.allEvents.last { $0["event"] as? String == "accessory" }?["state"] as? String == "standby")
    }
}
