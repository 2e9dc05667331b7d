import BluetoothCore
import GATT
import HCI
@testable import HeadUnitCore
import ScriptedPeers
@testable import ScriptedPairing
import SMP
import Testing

/// A bonded phone's CCCDs of the head unit's GATT server persist across
/// connections (Core Vol 3 Part G 3.3.3.3), stored with its bond through
/// the core's state writes, and go with the bond.
@Suite struct BondedClientStateTests {
    static let bondKey = "settings C4:5A:11:22:33:44"
    /// Service Changed's CCCD in the head unit's database (GAP 1-5, GATT
    /// from 6: Service Changed declaration 7, value 8, CCCD 9).
    static let serviceChangedCCCD: [UInt8] = [0x09, 0x00]

    func clientStates(_ rig: CoreRig) -> [BondedClientState] {
        rig.writes.compactMap { if case let .clientState(bytes, Self.bondKey) = $0 { return try? BondedClientState.decode(bytes) } else { return nil } }
    }

    func serviceChangedIndications(_ rig: CoreRig) -> ClientConfiguration? {
        guard let link = rig.core.links.values.first, let value = link.bearer.server.database.valueHandle(of: GATTUUID.serviceChanged) else { return nil }
        return link.bearer.server.clientConfiguration(forValue: value)
    }

    @Test func theCCCDsOfABondedPhoneComeBackWhenItEncryptsWithItsBond() throws {
        let (first, phone) = try settingsRig()
        try pairFromSettings(first, phone)
        let bond = try #require(first.savedBond)
        #expect(first.events.contains(.encrypted(server: Self.bondKey, bonded: true)))
        // The phone asks for Service Changed indications: stored with the bond.
        first.phoneSends([0x12] + Self.serviceChangedCCCD + [0x02, 0x00])
        let saved = try #require(clientStates(first).last)
        #expect(saved.configurations == [StoredClientConfiguration(characteristic: GATTUUID.serviceChanged, value: .indication)])
        #expect(saved.wantsServiceChanged)

        // A restart with the bond and the state file; the phone comes back.
        var stored = accessoryState
        stored.bonds[Self.bondKey] = bond
        stored.clientStates[Self.bondKey] = saved.encoded()
        let (rig, _) = try settingsRig(stored: stored, phoneAddress: try settingsPhoneIRK.resolvablePrivateAddress(prand: [0x44, 0x55, 0x66]))
        rig.peripheralEncryption = { ltk in (ltk == bond.longTermKey.bytes ? 0 : 0x06, []) }
        rig.phoneConnectsToUs()
        #expect(serviceChangedIndications(rig) == [], "nothing before encryption with the bond")
        rig.phoneStartsEncryption()
        #expect(rig.events.contains(.encrypted(server: Self.bondKey, bonded: true)))
        #expect(serviceChangedIndications(rig) == .indication, "restored without being written again")
        #expect(clientStates(rig).isEmpty, "nothing changed: nothing written")
        #expect(!rig.phone.fromHeadUnitServer.contains { $0.first == 0x1D }, "the same database: no Service Changed")

        // The phone turns them off: stored; forgetting the bond forgets them.
        rig.phoneSends([0x12] + Self.serviceChangedCCCD + [0x00, 0x00])
        #expect(clientStates(rig).last?.configurations == [])
        rig.console("forget \(Self.bondKey)")
        #expect(rig.writes.contains(.deleteBond(server: Self.bondKey)))
        #expect(rig.core.kept.clientStates[Self.bondKey] == nil)
    }

    /// The database changed since the phone last saw it (another firmware
    /// or `notifbridge` switched): Service Changed is indicated once the
    /// link is encrypted with the bond, and the new database is stored as
    /// known once the phone confirms.
    @Test func aBondedPhoneThatSawAnotherDatabaseIsToldItChanged() throws {
        let (first, phone) = try settingsRig()
        try pairFromSettings(first, phone)
        let bond = try #require(first.savedBond)
        var stored = accessoryState
        stored.bonds[Self.bondKey] = bond
        let old = BondedClientState(configurations: [StoredClientConfiguration(characteristic: GATTUUID.serviceChanged, value: .indication)],
                                    databaseHash: [UInt8](repeating: 0x77, count: 16))
        stored.clientStates[Self.bondKey] = old.encoded()
        let (rig, _) = try settingsRig(stored: stored, phoneAddress: try settingsPhoneIRK.resolvablePrivateAddress(prand: [0x44, 0x55, 0x66]))
        rig.peripheralEncryption = { ltk in (ltk == bond.longTermKey.bytes ? 0 : 0x06, []) }
        rig.phoneConnectsToUs()
        rig.phoneStartsEncryption()
        // Service Changed for the whole database, which the phone confirms
        // (the scripted phone confirms every indication).
        #expect(rig.phone.fromHeadUnitServer.contains([0x1D, 0x08, 0x00, 0x01, 0x00, 0xFF, 0xFF]))
        let link = try #require(rig.core.links.values.first)
        #expect(link.bearer.server.isChangeAware)
        // Stored once: the database the phone now knows.
        #expect(clientStates(rig).map(\.databaseHash) == [rig.core.kept.databaseFingerprint])
        #expect(rig.core.kept.databaseFingerprint.count == 16 && rig.core.kept.databaseFingerprint != old.databaseHash)
    }

    @Test func aStateFileRoundTripsAndDamageIsRefused() throws {
        let state = BondedClientState(configurations: [StoredClientConfiguration(characteristic: GATTUUID.serviceChanged, value: .indication),
                                                       StoredClientConfiguration(characteristic: BluetoothUUID("D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C4B")!, value: .indication)],
                                      databaseHash: Array(0..<16))
        let bytes = state.encoded()
        #expect(try BondedClientState.decode(bytes) == state)
        var damaged = bytes
        damaged[20] ^= 0x01
        #expect(throws: BondDecodingError.checksumMismatch) { try BondedClientState.decode(damaged) }
        var newer = bytes
        newer[4] = 2
        #expect(throws: BondDecodingError.unsupportedVersion(2)) { try BondedClientState.decode(newer) }
        // A state without its bond is not restored.
        #expect(KeptState.decodeClientStates([Self.bondKey: bytes], bonds: [:]).isEmpty)
    }
}
