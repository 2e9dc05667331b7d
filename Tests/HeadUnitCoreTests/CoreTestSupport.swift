import BluetoothCore
import HCI
import HeadUnitCore
import NavigationNotifier
import ScriptedPeers
@testable import ScriptedPairing
@testable import SMP
import ScreenValues
import Testing

let clientName = "HU-3F9A21"
/// The head unit's own IRK, given to the phone in key distribution.
let headUnitIRK = IdentityResolvingKey(bytes: [UInt8](repeating: 0x5A, count: 16))

/// What a head unit that never paired starts with.
let freshState = StoredState(clientName: clientName, localIRK: headUnitIRK)

/// The head unit's identity as an accessory (a static random address).
let headUnitIdentity = StaticRandomAddress(text: "C4:12:34:56:78:9A")!

/// A head unit that never paired and advertises as an accessory: phones
/// may connect to it (Settings pairing, NotifBridge).
let accessoryState = StoredState(clientName: clientName, localIRK: headUnitIRK, identityAddress: headUnitIdentity)

/// A rig whose phone pairs for real: the SMP answers come from `TestPhone`
/// (passkey entry, LE Secure Connections), the controller encrypts only
/// with the key the phone derived, and the passkey the head unit shows is
/// what the user types on the phone.
func pairingRig(stored: StoredState = freshState, phone: ScriptedPhone = ScriptedPhone(),
                settings: CoreSettings = CoreSettings()) throws -> (CoreRig, TestPhone) {
    let rig = CoreRig(settings: settings, stored: stored, phone: phone)
    let smp = try TestPhone(central: CoreRig.controllerAddress, phone: rig.phoneAddress)
    // The phone advertises from its identity address (no private address here).
    smp.identityAddress = rig.phoneAddress
    wire(rig, to: smp)
    return (rig, smp)
}

func wire(_ rig: CoreRig, to smp: TestPhone) {
    rig.smp = { pdu in (try? smp.handle(pdu)) ?? [] }
    rig.onPasskey = { text in smp.typedPasskey = UInt32(text).flatMap { Passkey($0) } }
    rig.encryption = { ltk in
        guard smp.failedWith == nil, let expected = try? smp.expectedEncryptionKey(), expected == ltk else {
            return (0x06, [])  // PIN or Key Missing: the phone has no such key
        }
        return (0, smp.distributeKeys())
    }
}

/// What a head unit bonded with `bond` starts with.
func bondedState(_ bond: BondRecord) -> StoredState {
    StoredState(clientName: clientName, rememberedServer: "Anna-iPhone-7F3A", bonds: ["Anna-iPhone-7F3A": bond], localIRK: headUnitIRK)
}

/// The SMP phone answers up to the public keys (the passkey is on the
/// head unit's screen), then says nothing more.
func silentAfterPublicKey(_ smp: TestPhone) -> ([UInt8]) -> [[UInt8]] {
    { pdu in pdu.first == 0x01 || pdu.first == 0x0C ? (try? smp.handle(pdu)) ?? [] : [] }
}

extension CoreRig {
    var connectionAttempts: Int { commands.filter { $0 == .leCreateConnection }.count }

    var eventNames: [String] { events.map(\.name) }

    var states: [PairingState] {
        events.compactMap { if case .state(let s) = $0 { return s } else { return nil } }
    }

    var savedBond: BondRecord? {
        for w in writes { if case .saveBond(let bond, _) = w { return bond } }
        return nil
    }

    var shownNotifications: [String] {
        events.compactMap { e in
            guard case .notification(let n) = e, n.action == .shown || n.action == .updated else { return nil }
            return n.title
        }
    }

    func sent(_ code: UInt8) -> Int { smpSent.filter { $0.first == code }.count }

    func screen() -> ScreenModel { core.screenModel(now: now, systemMinutes: 9 * 60 + 41) }

    /// Errors in the event log, as "what: detail".
    var errors: [String] {
        events.compactMap { if case .error(let e) = $0 { return "\(e.what): \(e.detail)" } else { return nil } }
    }
}

extension CoreEvent {
    var name: String {
        switch self {
        case .state: return "state"
        case .passkey: return "passkey"
        case .numericComparison: return "numeric_comparison"
        case .paired: return "paired"
        case .encrypted: return "encrypted"
        case .notification: return "notification"
        case .nowPlaying: return "now_playing"
        case .error: return "error"
        case .accessory: return "accessory"
        case .ghostDrop: return "ghostdrop"
        }
    }
}

/// An iPhone paired from Settings: TestInitiatorPhone's IRK, and a private address made with it.
let settingsPhoneIRK = IdentityResolvingKey(bytes: bytesFromHex("0102030405060708090a0b0c0d0e0f10")!)!
let settingsPhoneRPA = try! settingsPhoneIRK.resolvablePrivateAddress(prand: [0x11, 0x22, 0x63])

struct PairingDidNotFinish: Error {}

/// A head unit that advertises (started), and a stock iPhone ready to tap
/// it in Settings: it pairs as SMP initiator and encrypts through the
/// controller's LE Long Term Key Request.
func settingsRig(stored: StoredState = accessoryState, settings: CoreSettings = CoreSettings(findsNavigationNotifierPhones: false),
                 phoneAddress: BluetoothAddress = settingsPhoneRPA, prepare: (CoreRig) -> Void = { _ in }) throws -> (CoreRig, TestInitiatorPhone) {
    let rig = CoreRig(settings: settings, stored: stored, phoneAddress: phoneAddress)
    // A stock iPhone: no NavigationNotifier app advertising.
    rig.phoneAdvertises = false
    let phone = try TestInitiatorPhone(phone: phoneAddress, headUnit: headUnitIdentity.address)
    rig.smp = { pdu in (try? phone.handle(pdu)) ?? [] }
    rig.onPasskey = { text in phone.typedPasskey = UInt32(text).flatMap { Passkey($0) } }
    rig.peripheralEncryption = { ltk in
        guard let ltk, ltk == phone.ltk else { return (0x06, []) }
        return (0, phone.encrypted())
    }
    prepare(rig)
    rig.start()
    return (rig, phone)
}

/// The user taps the head unit and types the passkey it shows; the phone
/// then encrypts with the new key.
func pairFromSettings(_ rig: CoreRig, _ phone: TestInitiatorPhone) throws {
    rig.phoneConnectsToUs()
    for pdu in phone.startPairing() { rig.phoneSendsSMP(pdu) }
    for pdu in try phone.passkeyTyped() { rig.phoneSendsSMP(pdu) }
    guard phone.readyToEncrypt else { throw PairingDidNotFinish() }
    phone.readyToEncrypt = false
    rig.phoneStartsEncryption()
}

/// The head unit takes phones both ways; the rig's first phone has the
/// app (paired by `app`), its second is a stock iPhone that taps the head
/// unit in Settings (paired by `iphoneSMP`). Nobody advertises yet.
struct TwoPhones {
    let rig: CoreRig
    let app: TestPhone
    let iphone: RigPhone
    let iphoneSMP: TestInitiatorPhone

    init(settings: CoreSettings = CoreSettings()) throws {
        (rig, app) = try pairingRig(stored: accessoryState, settings: settings)
        rig.phoneAdvertises = false
        iphone = rig.addPhone(ScriptedPhone(serverName: "unused"), address: settingsPhoneRPA)
        iphone.advertises = false
        let smp = try TestInitiatorPhone(phone: settingsPhoneRPA, headUnit: headUnitIdentity.address)
        iphoneSMP = smp
        iphone.smp = { pdu in (try? smp.handle(pdu)) ?? [] }
        iphone.peripheralEncryption = { ltk in
            guard let ltk, ltk == smp.ltk else { return (0x06, []) }
            return (0, smp.encrypted())
        }
    }

    /// The iPhone connects and sends its Pairing Request; the passkey on
    /// screen is the one its user will type.
    func iphoneTapsTheHeadUnit() throws {
        rig.phoneConnectsToUs(iphone)
        for pdu in iphoneSMP.startPairing() { rig.phoneSendsSMP(pdu, from: iphone) }
        let shown = try #require(rig.core.passkeyShown)
        iphoneSMP.typedPasskey = UInt32(shown).flatMap { Passkey($0) }
    }

    /// The iPhone's user types the passkey; the iPhone then encrypts with the new key.
    func iphoneFinishesPairing() throws {
        for pdu in try iphoneSMP.passkeyTyped() { rig.phoneSendsSMP(pdu, from: iphone) }
        guard iphoneSMP.readyToEncrypt else { throw PairingDidNotFinish() }
        iphoneSMP.readyToEncrypt = false
        rig.phoneStartsEncryption(from: iphone)
    }

    /// The app phone's advertisement is heard: the routine connects, checks and pairs.
    func appPhoneIsHeard() {
        rig.first.advertises = true
        rig.deliver([rig.first.advertisement()])
        rig.advance(milliseconds: 500)
    }

    var accessoryStates: [AccessoryReport.State] {
        rig.events.compactMap { if case .accessory(let r) = $0 { return r.state } else { return nil } }
    }
}

