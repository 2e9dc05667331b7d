import ANCS
import BluetoothCore
import HeadUnitCore
import ScriptedPeers
@testable import ScriptedPairing
import Testing

/// iOS serves ANCS only on a bonded link: it publishes the service after
/// bonding (and says so with Service Changed), or refuses it with an ATT
/// error until its side of the bond is complete.
@Suite struct ANCSBondingTests {
    @Test func ancsPublishedAfterBondingIsFoundThroughServiceChanged() throws {
        let (rig, _) = try pairingRig()
        rig.start()
        #expect(rig.phone.isSubscribed(rig.phone.handles.serviceChanged))
        #expect(rig.phone.post(1, .init(app: "com.google.Maps", title: "In 1 km", message: "Go straight")) == nil)
        rig.phoneSends(rig.phone.publishANCS())
        rig.phoneSends(rig.phone.post(2, .init(app: "com.google.Maps", title: "In 200 m", message: "Turn right")))
        #expect(rig.shownNotifications == ["In 200 m"])
    }

    /// 0x05 Insufficient Authentication and 0x0F Insufficient Encryption
    /// on the ANCS subscription before the phone's bond is complete: the
    /// link is secured again, no session, a retry later, and the session
    /// once the phone has bonded. Neither means sharing is off.
    @Test(arguments: [UInt8(0x05), 0x0F])
    func ancsRefusedUntilThePhoneHasBonded(code: UInt8) throws {
        let phone = ScriptedPhone(publishesANCSAfterBonding: false)
        phone.ancsErrorBeforeBonding = code
        let (rig, _) = try pairingRig(phone: phone)
        rig.phoneBondsOnEncryption = false
        rig.start()
        #expect(rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
        #expect(!rig.phone.isSubscribed(rig.phone.handles.notificationSource))
        #expect(!rig.phone.isSubscribed(rig.phone.handles.dataSource))
        // The phone does not take the link as secure: pairing again, not
        // "Share System Notifications is off".
        #expect(rig.sent(0x01) == 2)
        #expect(rig.core.hint == nil)
        // Still refused at the first retry.
        rig.advance(milliseconds: 61_000)
        #expect(!rig.phone.isSubscribed(rig.phone.handles.dataSource))

        rig.phone.bondingCompleted()
        rig.advance(milliseconds: 61_000)
        #expect(rig.phone.isSubscribed(rig.phone.handles.notificationSource))
        rig.phoneSends(rig.phone.post(3, .init(app: "com.google.Maps", title: "In 50 m", message: "Turn left")))
        #expect(rig.shownNotifications == ["In 50 m"])
        #expect(rig.core.hint == nil)
    }

    /// iOS keeps refusing ANCS as not secure on the link it paired: two
    /// more pairings (two more passkeys), then the driver is asked to pair
    /// again by hand, and no passkey comes every minute after that.
    @Test func ancsRefusedForEverPairsAgainTwiceThenShowsTheHint() throws {
        let phone = ScriptedPhone(publishesANCSAfterBonding: false)
        phone.ancsErrorBeforeBonding = 0x05
        let (rig, _) = try pairingRig(phone: phone)
        rig.phoneBondsOnEncryption = false
        rig.start()
        #expect(rig.sent(0x01) == 2, "the first pairing and one again")
        #expect(rig.core.hint == nil)
        rig.advance(milliseconds: 61_000)
        #expect(rig.sent(0x01) == 3)
        for _ in 0..<10 { rig.advance(milliseconds: 61_000) }
        #expect(rig.sent(0x01) == 3, "no passkey every minute")
        #expect(rig.core.hint == .hintPairAgain)
        #expect(rig.errors.contains { $0.hasPrefix("ancs: ") })
        // Still tried now and then: a phone that accepts at last is served.
        rig.phone.bondingCompleted()
        rig.advance(milliseconds: 5 * 60_000)
        #expect(rig.phone.isSubscribed(rig.phone.handles.notificationSource))
        #expect(rig.sent(0x01) == 3)
    }

    /// 0x08 Insufficient Authorization: iOS's "Allow … to receive your
    /// notifications?" is open (or was declined). The hint says what to do,
    /// which is not what "Share System Notifications is off" says, and goes
    /// once the phone shares.
    @Test func notificationsNotAllowedYetAskTheDriverToAllowThem() throws {
        let phone = ScriptedPhone(publishesANCSAfterBonding: false)
        phone.ancsErrorBeforeBonding = 0x08
        let (rig, _) = try pairingRig(phone: phone)
        rig.phoneBondsOnEncryption = false
        rig.start()
        #expect(!rig.phone.isSubscribed(rig.phone.handles.dataSource))
        #expect(rig.core.hint == .hintAllowNotifications)
        #expect(rig.screen().hint == "Allow notifications for this head unit on the iPhone")
        #expect(rig.errors.contains("ancs: notifications not allowed for this head unit on the iPhone"))
        #expect(rig.sent(0x01) == 1, "not a security problem: no pairing again")

        rig.phone.bondingCompleted()  // the driver taps Allow
        rig.advance(milliseconds: 3_100)
        #expect(rig.phone.isSubscribed(rig.phone.handles.dataSource))
        rig.phoneSends(rig.phone.post(3, .init(app: "com.google.Maps", title: "In 50 m", message: "Turn left")))
        #expect(rig.shownNotifications == ["In 50 m"])
        #expect(rig.core.hint == nil)
        #expect(rig.screen().hint == nil)
    }
}
