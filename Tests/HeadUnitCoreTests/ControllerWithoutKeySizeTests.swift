import BluetoothCore
import HCI
import HeadUnitCore
import ScriptedPeers
@testable import ScriptedPairing
@testable import SMP
import Testing

/// A controller without Read Encryption Key Size (Bumble's own has none):
/// the key size comes from SMP, the pairing that just ran or the stored
/// bond, and a short key is refused all the same.
@Suite struct ControllerWithoutKeySizeTests {
    func lacking(_ rig: CoreRig) { rig.controller.set(.readEncryptionKeySize, supported: false) }

    func encrypted(_ rig: CoreRig) -> Bool {
        rig.events.contains { if case .encrypted = $0 { return true } else { return false } }
    }

    @Test func theAppPhonePairsAndTheCommandIsNeverSent() throws {
        let (rig, _) = try pairingRig()
        lacking(rig)
        rig.start()
        #expect(rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
        #expect(!rig.errors.contains { $0.hasPrefix("pairing:") })
        #expect(rig.savedBond?.keySize == 16)
        #expect(!rig.commands.contains(.readEncryptionKeySize))
    }

    @Test func theAppPhoneEncryptsAgainWithTheBond() throws {
        let (first, _) = try pairingRig()
        first.start()
        let bond = try #require(first.savedBond)
        let rig = CoreRig(stored: bondedState(bond), phone: ScriptedPhone(pairedClientName: clientName))
        lacking(rig)
        rig.start()
        #expect(rig.events.contains(.encrypted(server: "Anna-iPhone-7F3A", bonded: true)))
        #expect(!rig.commands.contains(.readEncryptionKeySize))
        #expect(!rig.commands.contains(.disconnect))
    }

    /// KNOB stays refused: a bond whose key is 7 octets is not used, even
    /// though no controller says so.
    @Test func aShortBondKeyIsRefusedWithoutTheController() throws {
        let (first, _) = try pairingRig()
        first.start()
        var bond = try #require(first.savedBond)
        bond.keySize = 7
        let rig = CoreRig(stored: bondedState(bond), phone: ScriptedPhone(pairedClientName: clientName))
        lacking(rig)
        rig.start()
        #expect(!encrypted(rig))
        #expect(rig.errors.contains { $0.hasPrefix("pairing:") })
        #expect(rig.commands.contains(.disconnect))
    }

    @Test func anIPhonePairsFromSettingsAndComesBack() throws {
        let (first, phone) = try settingsRig(prepare: lacking)
        try pairFromSettings(first, phone)
        let key = "settings C4:5A:11:22:33:44"
        #expect(first.events.contains(.encrypted(server: key, bonded: true)))
        #expect(!first.commands.contains(.readEncryptionKeySize))
        let bond = try #require(first.savedBond)

        var stored = accessoryState
        stored.bonds[key] = bond
        let newRPA = try settingsPhoneIRK.resolvablePrivateAddress(prand: [0x44, 0x55, 0x66])
        let (rig, _) = try settingsRig(stored: stored, phoneAddress: newRPA, prepare: lacking)
        rig.peripheralEncryption = { ltk in (ltk == bond.longTermKey.bytes ? 0 : 0x06, []) }
        rig.phoneConnectsToUs()
        rig.phoneStartsEncryption()
        #expect(rig.events.contains(.encrypted(server: key, bonded: true)))
        #expect(!rig.commands.contains(.readEncryptionKeySize))
    }
}
