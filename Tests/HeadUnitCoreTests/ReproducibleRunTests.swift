import BluetoothCore
import HeadUnitCore
import ScriptedPeers
@testable import ScriptedPairing
@testable import SMP
import Testing

/// The core draws every random byte from the source it is given: with
/// the same seeded source (and a phone that draws none of its own), two
/// runs send the controller the same bytes, pairing included.
@Suite struct ReproducibleRunTests {
    /// The phone's fixed P-256 key and nonces: only the head unit's source varies.
    static let phoneKey: [UInt8] = (0..<32).map { UInt8(0x20 + $0) }

    /// A phone found, checked, paired with a passkey (LE Secure
    /// Connections), encrypted and bonded; every H4 packet the core sent.
    func run(seed: UInt64) throws -> (packets: [[UInt8]], passkey: String?, bond: BondRecord?) {
        let rig = CoreRig(stored: freshState, random: .seeded(seed))
        let smp = try TestPhone(central: CoreRig.controllerAddress, phone: rig.phoneAddress,
                                keyPair: P256KeyPair.fromPrivateKey(bigEndian: Self.phoneKey))
        smp.identityAddress = rig.phoneAddress
        smp.nonces = (0..<64).map { [UInt8](repeating: UInt8($0), count: 16) }
        wire(rig, to: smp)
        var packets: [[UInt8]] = []
        rig.onTransmit = { packets.append($0.h4Bytes) }
        rig.start()
        rig.advance(milliseconds: 2_000)
        let passkey = rig.events.compactMap { if case .passkey(let p) = $0 { return p } else { return nil } }.first
        return (packets, passkey, rig.savedBond)
    }

    @Test func theSameSeedSendsTheControllerTheSameBytes() throws {
        let first = try run(seed: 25)
        let again = try run(seed: 25)
        #expect(first.passkey != nil && first.bond != nil, "the run did not pair")
        #expect(first.packets.count > 50)
        #expect(first.passkey == again.passkey)
        #expect(first.bond == again.bond)
        #expect(first.packets == again.packets)
    }

    /// The bytes do come from the source: another seed, another passkey
    /// and other keys on air.
    @Test func anotherSeedSendsOtherBytes() throws {
        let first = try run(seed: 25)
        let other = try run(seed: 26)
        #expect(other.bond != nil)
        #expect(first.passkey != other.passkey)
        #expect(first.packets != other.packets)
    }
}
