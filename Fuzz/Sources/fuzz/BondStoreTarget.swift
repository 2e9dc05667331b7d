import BluetoothCore
import GATT
import HeadUnitCore
@testable import SMP

/// A bond file as the state partition may hold it after a power cut or a
/// worn flash, decoded (the shell's bond store, which reads the files, is
/// I/O and not fuzzed here: PowerCutTests and DataSafetyIntegrationTests
/// load damaged files beside good ones).
enum BondStoreTarget {
    static let target = FuzzTarget(name: "bond-store", run: run, seeds: seeds)

    static let good = SMPTarget.bond

    static func run(_ data: [UInt8]) {
        // The GATT client state kept beside a bond: one canonical encoding.
        if let state = try? BondedClientState.decode(data) {
            invariant(state.encoded() == data, "a client state decodes from bytes it does not encode to")
        }
        if let bond = try? BondRecord.decode(data) {
            // One canonical encoding: what loads is what was stored.
            invariant(bond.encoded() == data, "a bond decodes from bytes it does not encode to")
            invariant((7...16).contains(bond.keySize) && !bond.longTermKey.isAllZero, "a bond with an unusable key loaded")
            _ = BondRecord.find(FuzzPhone.phoneAddress, in: [bond])
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        let full = good.encoded()
        let legacy = BondRecord(peerIdentityAddress: BluetoothAddress("00:11:22:33:44:55")!, peerIRK: nil,
                                longTermKey: FuzzPhone.legacyLTK, ediv: 0x1234, rand: 0x0102_0304_0506_0708, keySize: 7,
                                authenticated: false, secureConnections: false, localIRK: nil).encoded()
        var badChecksum = full
        badChecksum[badChecksum.count - 1] ^= 0xFF
        return [
            ("secure-connections", full),
            ("legacy-short-key", legacy),
            ("truncated", Array(full.prefix(20))),
            ("checksum", badChecksum),
            ("version-2", [0x4E, 0x4E, 0x42, 0x44, 0x02] + Array(full.dropFirst(5))),
            ("empty", []),
            ("client-state", BondedClientState(configurations: [StoredClientConfiguration(characteristic: BluetoothUUID(0x2A05), value: .indication)],
                                               databaseHash: Array(0..<16)).encoded()),
        ]
    }
}
