import ANCS
import BluetoothCore
import HCI
import HeadUnitCore
import NavigationNotifier
import ScriptedPeers
@testable import ScriptedPairing
@testable import SMP
import Testing

/// Both ways at once: a phone with the NavigationNotifier app (the head
/// unit is its central) and a stock iPhone from Settings (the head unit is
/// its peripheral), each on its own link. The first link to be encrypted is
/// the phone; the second is told so and dropped, and the first goes on as
/// if it had never been there.
@Suite struct OnePhoneTests {
    static let settingsKey = "settings C4:5A:11:22:33:44"

    static let maps = ScriptedPhone.Notification(app: "com.google.Maps", title: "In 300 m, turn left", message: "Main Street")
    static let otherMaps = ScriptedPhone.Notification(app: "com.google.Maps", title: "In 2 km, exit 12", message: "A9")

    /// The app phone is the phone; the iPhone was pairing meanwhile and is
    /// dropped when its link is encrypted.
    @Test func aSettingsIPhoneEncryptedAfterTheAppPhoneIsDropped() throws {
        let two = try TwoPhones()
        let rig = two.rig
        rig.start()
        try two.iphoneTapsTheHeadUnit()
        two.appPhoneIsHeard()
        #expect(rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
        #expect(two.accessoryStates.last == .standby)
        rig.phoneSends(rig.phone.publishANCS())
        rig.phoneSends(rig.phone.post(5, Self.maps))
        #expect(rig.screen().navigation?.title == Self.maps.title)
        let errorsBefore = rig.errors.count

        try two.iphoneFinishesPairing()
        // Told why and dropped: an error, a disconnect with 0x14 (no room
        // for another phone), and nothing of the phone's services on it.
        #expect(two.iphone.disconnectReason == 0x14)
        #expect(!two.iphone.isLinkUp)
        #expect(Array(rig.errors.dropFirst(errorsBefore)) == ["phone: another phone is already connected: one phone at a time"])
        #expect(!rig.events.contains(.encrypted(server: Self.settingsKey, bonded: true)))
        #expect(!two.iphone.phone.requests.contains(0x12), "no ANCS, AMS or name written on the dropped link")
        #expect(rig.core.links.count == 1)

        // The app phone goes on: what it showed stays, its next instruction
        // is shown, and the head unit still stands by as an accessory.
        #expect(rig.screen().navigation?.title == Self.maps.title)
        rig.phoneSends(rig.phone.post(6, Self.otherMaps))
        #expect(rig.screen().navigation?.title == Self.otherMaps.title)
        #expect(rig.core.notifications.shown.count == 2)
        #expect(rig.screen().pairing == .connected(server: "Anna-iPhone-7F3A"))
        #expect(two.accessoryStates.last == .standby)
    }

    /// The iPhone from Settings is the phone; the routine was checking an
    /// app phone meanwhile, which is dropped when its link is encrypted and
    /// stays remembered (it was refused, not unpaired).
    @Test func anAppPhoneEncryptedAfterTheSettingsIPhoneIsDropped() throws {
        let two = try TwoPhones()
        let rig = two.rig
        rig.first.advertises = true
        rig.phoneAnswersATT = false  // the routine's check waits on the phone
        rig.start()
        #expect(rig.core.links.count == 1)

        try two.iphoneTapsTheHeadUnit()
        try two.iphoneFinishesPairing()
        #expect(rig.events.contains(.encrypted(server: Self.settingsKey, bonded: true)))
        #expect(two.accessoryStates.last == .connected)
        two.iphone.phone.bondingCompleted()
        rig.phoneSends(two.iphone.phone.publishANCS(), from: two.iphone)
        rig.phoneSends(two.iphone.phone.post(5, Self.maps), from: two.iphone)
        #expect(rig.screen().navigation?.title == Self.maps.title)
        let errorsBefore = rig.errors.count

        // The app phone answers at last: names checked, paired, encrypted, dropped.
        rig.releaseHeldATT()
        #expect(rig.events.contains { if case .paired(server: "Anna-iPhone-7F3A", _, _, _) = $0 { return true } else { return false } })
        #expect(rig.first.disconnectReason == 0x14)
        #expect(!rig.first.isLinkUp)
        #expect(Array(rig.errors.dropFirst(errorsBefore)) == ["phone: another phone is already connected: one phone at a time"])
        #expect(!rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
        #expect(!rig.phone.isSubscribed(rig.phone.handles.notificationSource))
        // docs/PROTOCOL.md §1: its name is not taken back and it stays remembered.
        #expect(rig.phone.pairedClientName == clientName)
        #expect(rig.core.pairing.rememberedServer == "Anna-iPhone-7F3A")
        #expect(!rig.writes.contains(.forgetServer))

        // The iPhone goes on, its notification (the same UID as the app
        // phone would use) untouched.
        #expect(rig.screen().navigation?.title == Self.maps.title)
        rig.phoneSends(two.iphone.phone.post(6, Self.otherMaps), from: two.iphone)
        #expect(rig.core.notifications.shown.count == 2)
        #expect(rig.screen().pairing == .connected(server: ScriptedPhone.deviceName))
        #expect(two.accessoryStates.last == .connected)

        // When the iPhone leaves, the routine (looking when it came) finds the app phone again.
        rig.dropLink(of: two.iphone)
        rig.advance(milliseconds: 3_000)
        #expect(rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
    }

    /// Two iPhones tap the head unit in Settings at once (pairing mode is
    /// open: no phone yet). The screen holds one passkey: the second phone
    /// to ask is refused with Pairing Failed, the first one's passkey stays
    /// on screen, and its user pairs with it.
    @Test func aSecondPairingWhileAPasskeyIsOnScreenIsRefusedAndTheFirstGoesOn() throws {
        let (rig, first) = try settingsRig()
        rig.phoneConnectsToUs()
        for pdu in first.startPairing() { rig.phoneSendsSMP(pdu) }
        let shown = try #require(rig.core.passkeyShown)

        let otherAddress = try settingsPhoneIRK.resolvablePrivateAddress(prand: [0x44, 0x55, 0x66])
        let other = rig.addPhone(ScriptedPhone(serverName: "unused"), address: otherAddress)
        other.advertises = false
        let otherSMP = try TestInitiatorPhone(phone: otherAddress, headUnit: headUnitIdentity.address)
        var toOther: [[UInt8]] = []
        other.smp = { pdu in
            toOther.append(pdu)
            return (try? otherSMP.handle(pdu)) ?? []
        }
        rig.phoneConnectsToUs(other)
        for pdu in otherSMP.startPairing() { rig.phoneSendsSMP(pdu, from: other) }

        #expect(toOther.contains { $0.first == 0x05 }, "the second phone was not told Pairing Failed: \(toOther)")
        #expect(rig.core.passkeyShown == shown, "the first phone's passkey left the screen")
        #expect(rig.events.filter { if case .passkey = $0 { return true } else { return false } }.count == 1)

        for pdu in try first.passkeyTyped() { rig.phoneSendsSMP(pdu) }
        #expect(first.readyToEncrypt)
        first.readyToEncrypt = false
        rig.phoneStartsEncryption()
        #expect(rig.events.contains(.encrypted(server: Self.settingsKey, bonded: true)))
        #expect(rig.core.passkeyShown == nil)
    }
}
