import BluetoothCore
import HeadUnitCore
import ScriptedPeers
@testable import ScriptedPairing
@testable import SMP
import Testing

/// The bonded phone in the driver's pocket: with the Server app in the
/// background iOS advertises neither the service nor the name
/// (docs/PROTOCOL.md §7). The core gives the pairing routine every bond, at
/// start and after each change, and the routine knows the phone by them.
@Suite struct PhoneInPocketTests {
    static let phoneIRK = IdentityResolvingKey(bytes: [UInt8](repeating: 0xC3, count: 16))!

    static func bond(irk: IdentityResolvingKey) -> BondRecord {
        BondRecord(peerIdentityAddress: CoreRig.defaultPhoneAddress, peerIRK: irk,
                   longTermKey: LongTermKey(bytes: [UInt8](repeating: 0x42, count: 16))!,
                   keySize: 16, authenticated: true, secureConnections: true, localIRK: nil)
    }

    /// A phone advertising only a resolvable private address made with `phoneIRK`.
    func pocketRig(stored: StoredState) throws -> CoreRig {
        let address = try Self.phoneIRK.resolvablePrivateAddress(prand: [0x12, 0x34, 0x56])
        let rig = CoreRig(stored: stored, phone: ScriptedPhone(pairedClientName: clientName), phoneAddress: address)
        rig.advertisesService = false
        return rig
    }

    /// The bonds stored at start reach the routine: the phone is connected
    /// and encrypted with its keys, no pairing.
    @Test func theBondedPhoneIsFoundByItsIRKAfterAStart() throws {
        let rig = try pocketRig(stored: bondedState(Self.bond(irk: Self.phoneIRK)))
        rig.start()
        #expect(rig.connectionAttempts == 1)
        #expect(rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
        #expect(rig.smpSent.isEmpty)
    }

    /// A bond with another IRK does not resolve the address: an advertiser
    /// that says nothing about itself is not connected to.
    @Test func anotherPhonesAddressIsNotConnectedTo() throws {
        let otherIRK = IdentityResolvingKey(bytes: [UInt8](repeating: 0x3C, count: 16))!
        let rig = try pocketRig(stored: bondedState(Self.bond(irk: otherIRK)))
        rig.start()
        rig.advance(milliseconds: 5_000)
        #expect(rig.connectionAttempts == 0)
    }

    /// A bond saved by pairing reaches the routine at once: after a link
    /// loss the phone, now in the pocket, is found and encrypted again.
    @Test func aNewBondFindsThePhoneAfterALinkLoss() throws {
        let (rig, _) = try pairingRig()
        rig.start()
        #expect(rig.savedBond != nil)
        rig.dropLink()
        rig.advertisesService = false
        rig.advance(milliseconds: 2_000)
        #expect(rig.connectionAttempts == 2)
        #expect(rig.events.filter { $0 == .encrypted(server: "Anna-iPhone-7F3A", bonded: true) }.count == 2)
        #expect(rig.sent(0x01) == 1)
    }
}
