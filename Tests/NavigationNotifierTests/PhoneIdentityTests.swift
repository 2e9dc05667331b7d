import BluetoothCore
import SMP
import Testing
@testable import NavigationNotifier

/// Rule 8 and docs/PROTOCOL.md §7: addresses are not identities. A bonded
/// phone is found by its IRK (or its identity address) whatever it
/// advertises, as an iPhone with the app in the background advertises
/// neither the service UUID nor a name; rule 5 refuses a phone for the round
/// by its identity, so a new address does not bring it back.
@Suite struct PhoneIdentityTests {
    let me = "HU-3F9A21"
    let h1 = ConnectionHandle(1)
    let h2 = ConnectionHandle(2)
    let t = Instant(milliseconds: 1000)
    /// Anna's phone: the IRK of Vol 3 Part H Appendix D.7 and its sample address.
    static let annaIRK = IdentityResolvingKey(bytes: [UInt8](bytesFromHex("ec0234a357c8ad05341010a60a397d9b")!.reversed()))!
    static let annaRPA = BluetoothAddress("70:81:94:0D:FB:AA", kind: .random)!
    static let annaIdentity = BluetoothAddress("F0:99:B6:00:00:01", kind: .public)!
    static let bobIRK = IdentityResolvingKey(bytes: [UInt8](repeating: 0x5B, count: 16))!
    static let bobIdentity = BluetoothAddress("F0:99:B6:00:00:02", kind: .public)!
    /// A phone no bond knows, advertising from a resolvable private address.
    let stranger = BluetoothAddress("4A:11:22:33:44:55", kind: .random)!

    static func bond(_ identity: BluetoothAddress, _ irk: IdentityResolvingKey?) -> BondRecord {
        BondRecord(peerIdentityAddress: identity, peerIRK: irk, longTermKey: LongTermKey(bytes: [UInt8](repeating: 7, count: 16))!,
                   keySize: 16, authenticated: true, secureConnections: true, localIRK: nil)
    }

    static let bonds: [(server: String, bond: BondRecord)] = [
        ("Bob", bond(bobIdentity, bobIRK)), ("Anna", bond(annaIdentity, annaIRK)),
    ]

    func drain(_ r: PairingRoutine) -> [PairingAction] {
        var out: [PairingAction] = []
        while let a = r.pollAction() { out.append(a) }
        return out
    }

    func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    func scanning(remembered: String?, bonds: [(server: String, bond: BondRecord)] = PhoneIdentityTests.bonds) -> PairingRoutine {
        let r = PairingRoutine(clientName: me, rememberedServer: remembered)
        r.bondsChanged(bonds)
        r.start(now: t)
        _ = drain(r)
        return r
    }

    func rpa(_ irk: IdentityResolvingKey, _ prand: [UInt8]) -> BluetoothAddress {
        try! irk.resolvablePrivateAddress(prand: prand)
    }

    @Test func rememberedPhoneInTheBackgroundIsFoundByItsIRK() {
        let r = scanning(remembered: "Anna")
        // Another phone in the foreground, and Bob's bonded phone: not ours.
        r.advertiserSeen(stranger, connectable: true, advertisesService: true, now: t)
        r.advertiserSeen(rpa(Self.bobIRK, [1, 2, 3]), connectable: true, advertisesService: false, now: t)
        #expect(drain(r).isEmpty)
        // Anna's phone, no service UUID, no name: ours.
        r.advertiserSeen(Self.annaRPA, connectable: true, advertisesService: false, now: t)
        #expect(drain(r) == [.stopScanning, .stateChanged(.connecting(server: "Anna")), .connect(Self.annaRPA)])
    }

    @Test func rememberedPhoneIsFoundByItsIdentityAddress() {
        let r = scanning(remembered: "Anna")
        r.advertiserSeen(Self.annaIdentity, connectable: true, advertisesService: false, now: t)
        #expect(drain(r).last == .connect(Self.annaIdentity))
    }

    @Test func notConnectableIsNeverACandidate() {
        let r = scanning(remembered: "Anna")
        r.advertiserSeen(Self.annaRPA, connectable: false, advertisesService: false, now: t)
        #expect(drain(r).isEmpty)
    }

    @Test func rememberedPhoneWithoutABondIsFoundByTheServiceOnly() {
        // Remembered but not bonded yet (pairing never finished): the service UUID is all there is.
        let r = scanning(remembered: "Anna", bonds: [])
        r.advertiserSeen(Self.annaRPA, connectable: true, advertisesService: false, now: t)
        #expect(drain(r).isEmpty)
        r.advertiserSeen(stranger, connectable: true, advertisesService: true, now: t)
        #expect(drain(r).last == .connect(stranger))
    }

    @Test func rememberedPhoneBondedWithoutAnIRKIsFoundByTheServiceOrItsIdentity() {
        let r = scanning(remembered: "Anna", bonds: [("Anna", Self.bond(Self.annaIdentity, nil))])
        r.advertiserSeen(stranger, connectable: true, advertisesService: true, now: t)
        #expect(drain(r).last == .connect(stranger))
        let r2 = scanning(remembered: "Anna", bonds: [("Anna", Self.bond(Self.annaIdentity, nil))])
        r2.advertiserSeen(Self.annaIdentity, connectable: true, advertisesService: false, now: t)
        #expect(drain(r2).last == .connect(Self.annaIdentity))
    }

    @Test func withNothingRememberedABondedPhoneNeedsNoServiceButAStrangerDoes() {
        let r = scanning(remembered: nil)
        r.advertiserSeen(stranger, connectable: true, advertisesService: false, now: t)
        #expect(drain(r).isEmpty)
        r.advertiserSeen(Self.annaRPA, connectable: true, advertisesService: false, now: t)
        #expect(drain(r).last == .connect(Self.annaRPA))
    }

    @Test func eachAddressIsHashedOnce() {
        let r = scanning(remembered: "Anna")
        let other = rpa(IdentityResolvingKey(bytes: [UInt8](repeating: 0x77, count: 16))!, [9, 9, 9])
        // A phone in a pocket advertises once a second for 15 minutes.
        for _ in 0..<900 { r.advertiserSeen(other, connectable: true, advertisesService: false, now: t) }
        #expect(drain(r).isEmpty)
        #expect(r.addressHashesComputed == 2) // Bob's IRK and Anna's, once
    }

    /// Refuses `handle` as paired with another client after it said it is `server`.
    func refuse(_ r: PairingRoutine, _ address: BluetoothAddress, _ handle: ConnectionHandle, server: String) {
        r.advertiserSeen(address, connectable: true, advertisesService: true, now: t)
        #expect(drain(r).last == .connect(address))
        r.connected(handle, peer: address, now: t)
        r.serverNameRead(handle, .value(bytes(server)), now: t)
        r.pairedClientNameRead(handle, .value(bytes("HU-000001")), now: t)
        #expect(drain(r).contains(.disconnect(handle)))
        r.disconnected(handle, now: t)
        r.handleTimeout(now: r.nextDeadline!)
        #expect(drain(r).contains(.startScanning(.fast)))
    }

    @Test func aBondedPhoneRefusedIsNotTriedAgainUnderANewAddress() {
        let r = scanning(remembered: nil)
        refuse(r, rpa(Self.bobIRK, [1, 2, 3]), h1, server: "Bob")
        // Bob's address rotates: his IRK says it is still Bob.
        r.advertiserSeen(rpa(Self.bobIRK, [4, 5, 6]), connectable: true, advertisesService: true, now: t)
        r.advertiserSeen(Self.bobIdentity, connectable: true, advertisesService: true, now: t)
        #expect(drain(r).isEmpty)
        // Another phone is still welcome.
        r.advertiserSeen(stranger, connectable: true, advertisesService: true, now: t)
        #expect(drain(r).last == .connect(stranger))
    }

    @Test func anUnknownPhoneRefusedIsDroppedByItsServerNameUnderANewAddress() {
        let r = scanning(remembered: nil, bonds: [])
        let first = BluetoothAddress("4A:00:00:00:00:01", kind: .random)!
        let second = BluetoothAddress("4A:00:00:00:00:02", kind: .random)!
        refuse(r, first, h1, server: "Carl")
        // Carl's new address means nothing without his IRK: connect, read, drop at once.
        r.advertiserSeen(second, connectable: true, advertisesService: true, now: t)
        #expect(drain(r).last == .connect(second))
        r.connected(h2, peer: second, now: t)
        #expect(drain(r) == [.readServerName(h2)])
        r.serverNameRead(h2, .value(bytes("Carl")), now: t)
        #expect(drain(r) == [.disconnect(h2), .stateChanged(.discovering)])
        r.disconnected(h2, now: t)
        r.handleTimeout(now: r.nextDeadline!)
        #expect(drain(r) == [.startScanning(.fast)])
        // A new round (the user asks again) gives Carl another chance.
        r.userDisconnect(now: t)
        r.discover(now: t)
        _ = drain(r)
        r.advertiserSeen(first, connectable: true, advertisesService: true, now: t)
        #expect(drain(r).last == .connect(first))
    }
}
