import ANCS
import BluetoothCore
import HCI
import NotifBridge
import HeadUnitCore
import ScriptedPeers
import ScreenValues
@testable import ScriptedPairing
@testable import SMP
import Testing

/// The head unit as an accessory: an iPhone taps it in Settings →
/// Bluetooth, connects to it, pairs as the initiator with the passkey the
/// head unit shows, and later comes back from a new private address.
@Suite struct SettingsPairingTests {
    static let phoneIRK = settingsPhoneIRK
    static let phoneIdentity = BluetoothAddress("C4:5A:11:22:33:44", kind: .random)!

    /// A bond made from Settings, with a key the phone does not hold.
    static func bond(_ identity: BluetoothAddress, _ irk: IdentityResolvingKey) -> BondRecord {
        BondRecord(peerIdentityAddress: identity, peerIRK: irk, longTermKey: LongTermKey(bytes: [UInt8](repeating: 0x44, count: 16))!,
                   keySize: 16, authenticated: true, secureConnections: true, localIRK: headUnitIRK, localRole: .responder)
    }

    func accessoryStates(_ rig: CoreRig) -> [AccessoryReport.State] {
        rig.events.compactMap { if case .accessory(let r) = $0 { return r.state } else { return nil } }
    }

    @Test func itAdvertisesAsAnAccessoryFromItsOwnIdentity() throws {
        let (rig, _) = try settingsRig()
        #expect(rig.commands.contains(.leSetRandomAddress))
        #expect(rig.commands.contains(.leSetAdvertisingEnable))
        let advertiser = rig.core.host.advertiser
        #expect(advertiser.identity == headUnitIdentity)
        #expect(advertiser.audience == .anyone)
        // The Settings payload first: flags, then AD 0x15 (128-bit service
        // solicitation) with the ANCS UUID, least significant octet first.
        let data = try #require(advertiser.payloads.first?.advertisingData)
        let solicited = [UInt8(17), 0x15] + ANCSUUIDs.service.fullLittleEndian
        #expect(Array(data[3..<21]) == solicited)
        // A controller without advertising sets: NotifBridge's service is in the same payload.
        #expect(advertiser.payloads.count == 1)
        #expect(AdvertisingData(advertiser.payloads[0].scanResponse).advertises(NotifBridgeUUIDs.service))
        #expect(accessoryStates(rig) == [.pairing])
        // No scan: only phones paired from Settings.
        #expect(!rig.commands.contains(.leSetScanEnable))
    }

    @Test func anIPhonePairsWithThePasskeyOnScreenAndIsThePhone() throws {
        let (rig, phone) = try settingsRig()
        #expect(rig.screen().hint == "On your iPhone: Settings → Bluetooth → tap NotifBdg \(clientName.dropFirst(3))")
        try pairFromSettings(rig, phone)
        #expect(rig.events.contains { if case .passkey = $0 { return true } else { return false } })
        let key = "settings C4:5A:11:22:33:44"
        #expect(rig.events.contains(.paired(server: key, method: .passkeyEntry, secureConnections: true, mitm: true)))
        #expect(rig.events.contains(.encrypted(server: key, bonded: true)))
        let bond = try #require(rig.savedBond)
        #expect(bond.peerIdentityAddress == Self.phoneIdentity && bond.peerIRK == Self.phoneIRK)
        #expect(bond.localRole == .responder && bond.authenticated)
        // The phone keeps our identity, the address we advertise from.
        #expect(phone.receivedIdentityAddress == headUnitIdentity.address)
        #expect(phone.receivedIRK == headUnitIRK)
        #expect(accessoryStates(rig).last == .connected)
        // Named as the driver named the phone (its Generic Access Device Name).
        #expect(rig.screen().pairing == .connected(server: ScriptedPhone.deviceName))
        // Then the same phone link as ever: ANCS is looked for.
        #expect(rig.commands.filter { $0 == .leLongTermKeyRequestReply }.count == 1)
    }

    @Test func thePasskeyForASettingsPhoneDoesNotNameTheRememberedPhoneWithTheApp() throws {
        let anna = BondRecord(peerIdentityAddress: BluetoothAddress("D0:0D:AA:BB:CC:01", kind: .random)!, peerIRK: nil,
                              longTermKey: LongTermKey(bytes: [UInt8](repeating: 0x55, count: 16))!, keySize: 16,
                              authenticated: true, secureConnections: true, localIRK: headUnitIRK)
        var stored = accessoryState
        stored.rememberedServer = "Anna-iPhone-7F3A"
        stored.bonds = ["Anna-iPhone-7F3A": anna]
        // Both ways on; a stock iPhone (no app advertising) taps the head unit.
        let address = BluetoothAddress("5A:11:22:33:44:55", kind: .random)!
        let rig = CoreRig(settings: CoreSettings(), stored: stored, phoneAddress: address)
        rig.phoneAdvertises = false
        let phone = try TestInitiatorPhone(phone: address, headUnit: headUnitIdentity.address)
        rig.smp = { pdu in (try? phone.handle(pdu)) ?? [] }
        rig.start()
        #expect(rig.screen().pairing == .remembered(server: "Anna-iPhone-7F3A"))
        rig.phoneConnectsToUs()
        for pdu in phone.startPairing() { rig.phoneSendsSMP(pdu) }
        let screen = rig.screen()
        #expect(screen.passkey != nil)
        #expect(screen.pairing == .connecting(server: "iPhone"))
    }

    @Test func aPhoneThatDoesNothingGetsASecurityRequest() throws {
        let (rig, phone) = try settingsRig()
        rig.phoneConnectsToUs()
        #expect(rig.sent(0x0B) == 0)
        rig.advance(milliseconds: 1_100)
        #expect(rig.sent(0x0B) == 1, "Security Request")
        // The phone answers it with a Pairing Request; the passkey follows.
        #expect(phone.request != nil)
        #expect(rig.events.contains { if case .passkey = $0 { return true } else { return false } })
    }

    @Test func theBondedPhoneComesBackFromANewAddressAndEncryptsWithoutPairing() throws {
        let (first, phone) = try settingsRig()
        try pairFromSettings(first, phone)
        let bond = try #require(first.savedBond)
        #expect(first.core.host.advertiser.audience != .anyone, "advertising for the bonded phone only")

        // A restart; the phone comes back from another private address.
        var stored = accessoryState
        stored.bonds["settings C4:5A:11:22:33:44"] = bond
        let newRPA = try Self.phoneIRK.resolvablePrivateAddress(prand: [0x44, 0x55, 0x66])
        let (rig, _) = try settingsRig(stored: stored, phoneAddress: newRPA)
        #expect(accessoryStates(rig) == [.bonded])
        rig.peripheralEncryption = { ltk in (ltk == bond.longTermKey.bytes ? 0 : 0x06, []) }
        rig.phoneConnectsToUs()
        rig.phoneStartsEncryption()
        #expect(rig.longTermKeyAnswers == [bond.longTermKey.bytes])
        #expect(rig.events.contains(.encrypted(server: "settings C4:5A:11:22:33:44", bonded: true)))
        #expect(!rig.events.contains { if case .passkey = $0 { return true } else { return false } })
        #expect(accessoryStates(rig).last == .connected)
    }

    @Test func aStrangerIsSentAwayOutsidePairingModeAndWelcomeInsideIt() throws {
        // Bonded with someone else's phone.
        let other = Self.bond(BluetoothAddress("C4:99:88:77:66:55", kind: .random)!,
                              IdentityResolvingKey(bytes: [UInt8](repeating: 0x33, count: 16))!)
        var stored = accessoryState
        stored.bonds["settings C4:99:88:77:66:55"] = other
        let (rig, phone) = try settingsRig(stored: stored)
        rig.phoneConnectsToUs()
        #expect(rig.commands.contains(.disconnect))
        #expect(rig.errors.contains("accessory: an unknown phone tried to connect outside pairing mode"))
        #expect(rig.screen().actions.contains(.pairPhone))

        rig.console("pair")
        #expect(accessoryStates(rig).last == .pairing)
        #expect(rig.core.host.advertiser.audience == .anyone)
        try pairFromSettings(rig, phone)
        #expect(rig.events.contains(.encrypted(server: "settings C4:5A:11:22:33:44", bonded: true)))
    }

    @Test func thePairingWindowClosesByItself() throws {
        let other = Self.bond(Self.phoneIdentity, Self.phoneIRK)
        var stored = accessoryState
        stored.bonds["settings C4:5A:11:22:33:44"] = other
        let (rig, _) = try settingsRig(stored: stored)
        rig.core.perform(.pairPhone, now: rig.now)
        rig.settle()
        #expect(accessoryStates(rig) == [.bonded, .pairing])
        rig.advance(milliseconds: 119_000)
        #expect(accessoryStates(rig).last == .pairing)
        rig.advance(milliseconds: 2_000)
        #expect(accessoryStates(rig).last == .bonded)
        #expect(rig.core.host.advertiser.audience != .anyone)
    }

    /// Forget This Device on the iPhone, then it pairs again from
    /// Settings with no keys: nothing to do on the head unit. The bond is
    /// replaced in one save once the new pairing completes under the same
    /// identity; it is never deleted first, and pairing mode never opens.
    @Test func aPhoneThatForgotTheHeadUnitPairsAgainAndItsBondIsReplacedInOneSave() throws {
        let stale = Self.bond(Self.phoneIdentity, Self.phoneIRK)
        var stored = accessoryState
        stored.bonds["settings C4:5A:11:22:33:44"] = stale
        let (rig, phone) = try settingsRig(stored: stored)
        try pairFromSettings(rig, phone)
        #expect(!rig.writes.contains(.deleteBond(server: "settings C4:5A:11:22:33:44")))
        #expect(rig.writes.count == 1)
        #expect(!accessoryStates(rig).contains(.pairing))
        let renewed = try #require(rig.savedBond)
        #expect(renewed.longTermKey != stale.longTermKey)
        #expect(rig.events.contains(.encrypted(server: "settings C4:5A:11:22:33:44", bonded: true)))
    }

    @Test func withPhonesNavigationNotifierNothingIsAdvertised() throws {
        let (rig, _) = try settingsRig(settings: CoreSettings(advertises: false))
        #expect(!rig.commands.contains(.leSetAdvertisingEnable))
        #expect(!rig.events.contains { if case .accessory = $0 { return true } else { return false } })
        #expect(rig.commands.contains(.leSetScanEnable))
    }

    @Test func bothWaysAtOnceAPhoneWithTheAppStopsTheAdvertising() throws {
        let (rig, _) = try pairingRig(stored: accessoryState)
        rig.start()
        #expect(rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
        #expect(accessoryStates(rig) == [.pairing, .standby])
        #expect(rig.core.host.advertiser.advertisement == nil)
        rig.dropLink()
        #expect(accessoryStates(rig).last == .pairing)
        #expect(rig.core.host.advertiser.advertisement != nil)
    }
}
