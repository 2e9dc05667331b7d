import Testing
import BluetoothCore
@testable import SMP

/// Recognising bonded peers behind their addresses, with the sample IRK and
/// resolvable private address of Vol 3 Part H Appendix D.7.
@Suite struct AddressResolverTests {
    /// Anna's bond: the sample IRK; Bob's: another IRK; Carl's: no IRK, a public identity.
    static let anna = BondRecordTests.full
    static var bob: BondRecord {
        var bond = BondRecordTests.full
        bond.peerIdentityAddress = BluetoothAddress("C4:5A:11:22:33:99", kind: .random)!
        bond.peerIRK = IdentityResolvingKey(bytes: spec("00112233 44556677 8899aabb ccddeeff"))
        return bond
    }
    static let carl = BondRecordTests.minimal

    func resolver(capacity: Int = 256) -> AddressResolver<String> {
        var r = AddressResolver<String>(capacity: capacity)
        r.setBonds([.init(peer: "Bob", bond: Self.bob), .init(peer: "Carl", bond: Self.carl),
                    .init(peer: "Anna", bond: Self.anna)])
        return r
    }

    @Test func findsThePeerBehindItsPrivateAddressAndItsIdentity() {
        var r = resolver()
        #expect(r.owner(of: AddressResolutionTests.sampleRPA) == "Anna")
        #expect(r.owner(of: Self.anna.peerIdentityAddress) == "Anna")
        #expect(r.owner(of: Self.carl.peerIdentityAddress) == "Carl")
        // The same bits as a public address are nobody's.
        #expect(r.owner(of: BluetoothAddress("70:81:94:0D:FB:AA", kind: .public)!) == nil)
        // One bit of the hash off: nobody's.
        #expect(r.owner(of: BluetoothAddress("70:81:94:0D:FB:AB", kind: .random)!) == nil)
        // Non-resolvable and static random addresses are never hashed.
        let before = r.hashesComputed
        #expect(r.owner(of: BluetoothAddress("30:81:94:0D:FB:AA", kind: .random)!) == nil)
        #expect(r.owner(of: BluetoothAddress("F0:81:94:0D:FB:AA", kind: .random)!) == nil)
        #expect(r.hashesComputed == before)
    }

    @Test func eachAddressCostsItsHashesOnce() throws {
        var r = resolver()
        // Bob's IRK, then Anna's: two hashes the first time, none after.
        for _ in 0..<100 { #expect(r.owner(of: AddressResolutionTests.sampleRPA) == "Anna") }
        #expect(r.hashesComputed == 2)
        let stranger = try IdentityResolvingKey.generate().resolvablePrivateAddress(prand: [1, 2, 3])
        for _ in 0..<100 { #expect(r.owner(of: stranger) == nil) }
        #expect(r.hashesComputed == 4)
    }

    @Test func keepsAtMostCapacityAnswers() throws {
        var r = resolver(capacity: 2)
        let a = AddressResolutionTests.sampleRPA
        let irk = try IdentityResolvingKey.generate()
        let b = try irk.resolvablePrivateAddress(prand: [4, 5, 6])
        let c = try irk.resolvablePrivateAddress(prand: [7, 8, 9])
        _ = r.owner(of: a)
        _ = r.owner(of: b)
        _ = r.owner(of: c) // `a` goes
        let before = r.hashesComputed
        #expect(r.owner(of: c) == nil)
        #expect(r.hashesComputed == before)
        #expect(r.owner(of: a) == "Anna")
        #expect(r.hashesComputed == before + 2)
    }

    @Test func newBondsDropOldAnswers() {
        var r = AddressResolver<String>()
        r.setBonds([.init(peer: "Carl", bond: Self.carl)])
        #expect(r.owner(of: AddressResolutionTests.sampleRPA) == nil)
        r.setBonds([.init(peer: "Anna", bond: Self.anna)])
        #expect(r.owner(of: AddressResolutionTests.sampleRPA) == "Anna")
        r.setBonds([])
        #expect(r.owner(of: AddressResolutionTests.sampleRPA) == nil)
    }

    @Test func recognisesOnlyPeersWithAUsableIRK() {
        var zero = Self.anna
        zero.peerIRK = IdentityResolvingKey(bytes: [UInt8](repeating: 0, count: 16))
        var r = resolver()
        r.setBonds(r.entries + [.init(peer: "Zed", bond: zero)])
        #expect(r.recognises("Anna") && r.recognises("Bob"))
        #expect(!r.recognises("Carl") && !r.recognises("Zed") && !r.recognises("Nobody"))
    }
}
