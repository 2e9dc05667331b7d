import BluetoothCore
import HeadUnitCore
import ScriptedPeers
@testable import ScriptedPairing
@testable import SMP
import Testing

/// The passkey on screen and the comparison the confirm key answers belong
/// to the link whose pairing put them there: another link's loss takes
/// neither with it.
@Suite struct PasskeyPerLinkTests {
    /// `TwoPhones` with the app phone's SMP silent once its passkey is up,
    /// so that its pairing waits on screen.
    func twoPhones(settings: CoreSettings = CoreSettings()) throws -> TwoPhones {
        let two = try TwoPhones(settings: settings)
        two.rig.smp = silentAfterPublicKey(two.app)
        two.rig.start()
        return two
    }

    func passkeys(_ rig: CoreRig) -> [String] {
        rig.events.compactMap { if case .passkey(let p) = $0 { return p } else { return nil } }
    }

    /// The iPhone's passkey is up, then the app phone's pairing shows its
    /// own; the iPhone walks away. The app phone's passkey stays on screen
    /// for its user to type.
    @Test func anotherLinksLossLeavesThePasskeyOnScreen() throws {
        let two = try twoPhones()
        try two.iphoneTapsTheHeadUnit()
        let iphonePasskey = try #require(two.rig.core.passkeyShown)
        two.appPhoneIsHeard()
        let appPasskey = try #require(passkeys(two.rig).last)
        #expect(passkeys(two.rig) == [iphonePasskey, appPasskey])
        #expect(two.rig.core.passkeyShown == appPasskey)

        two.rig.dropLink(of: two.iphone)

        #expect(two.rig.core.passkeyShown == appPasskey, "the app phone's passkey left with the iPhone's link")
        #expect(two.rig.screen().passkey == appPasskey)
    }

    /// The other way round: the app phone's link goes while the iPhone,
    /// which asked first, still waits for its passkey.
    @Test func thePasskeyOfALinkThatStaysIsShownAfterTheOtherGoes() throws {
        let two = try twoPhones()
        try two.iphoneTapsTheHeadUnit()
        let iphonePasskey = try #require(two.rig.core.passkeyShown)
        two.appPhoneIsHeard()
        #expect(passkeys(two.rig).count == 2)

        two.rig.dropLink(of: two.rig.first)

        #expect(two.rig.core.passkeyShown == iphonePasskey, "the iPhone's pairing is still on; its passkey must be shown")
    }

    /// Numeric Comparison (the head unit has a confirm key, the iPhone a
    /// display and keyboard): the iPhone's number waits for the confirm key
    /// while the app phone pairs beside it and then goes. The confirm key
    /// still answers the iPhone's comparison.
    @Test func aComparisonOutlivesAnotherLinksLoss() throws {
        var settings = CoreSettings()
        settings.pairing.ioCapability = .displayYesNo
        let two = try twoPhones(settings: settings)
        try two.iphoneTapsTheHeadUnit()
        let number = try #require(two.rig.events.compactMap { if case .numericComparison(let v) = $0 { return v } else { return nil } }.last)
        two.appPhoneIsHeard()

        two.rig.dropLink(of: two.rig.first)

        #expect(two.rig.core.passkeyShown == number)
        let confirmsBefore = two.iphone.smpSent.count
        two.rig.core.confirmComparison(now: two.rig.now)
        two.rig.settle()
        #expect(two.iphone.smpSent.count > confirmsBefore, "the confirm key no longer answered the iPhone's comparison")
        #expect(two.rig.core.passkeyShown == nil)
    }

    /// Pairing mode with no phone yet, and four iPhones tap the head unit
    /// one after the other: the first one's passkey takes the screen, each
    /// later one is refused with Pairing Failed, and those that give up and
    /// leave take nothing with them.
    @Test func laterIPhonesAreRefusedAndTheirLeavingKeepsTheFirstPasskey() throws {
        let (rig, first) = try settingsRig()
        rig.phoneConnectsToUs()
        for pdu in first.startPairing() { rig.phoneSendsSMP(pdu) }
        let shown = try #require(rig.core.passkeyShown)

        var later: [RigPhone] = []
        for _ in 0..<3 {
            let iphone = rig.addPhone(ScriptedPhone(serverName: "unused"))
            iphone.advertises = false
            let smp = try TestInitiatorPhone(phone: iphone.address, headUnit: headUnitIdentity.address)
            iphone.smp = { pdu in (try? smp.handle(pdu)) ?? [] }
            rig.phoneConnectsToUs(iphone)
            for pdu in smp.startPairing() { rig.phoneSendsSMP(pdu, from: iphone) }
            later.append(iphone)
        }
        #expect(Set(rig.phones.map(\.handle)).count == 4)
        #expect(rig.core.links.count == 4)
        for iphone in later {
            #expect(iphone.smpSent.contains { $0.first == 0x05 }, "iPhone on \(iphone.handle) was not told Pairing Failed")
        }
        for iphone in later {
            rig.dropLink(of: iphone)
            #expect(rig.core.passkeyShown == shown)
        }
        #expect(rig.core.links.count == 1)

        for pdu in try first.passkeyTyped() { rig.phoneSendsSMP(pdu) }
        #expect(first.readyToEncrypt)
    }
}
