import BluetoothCore
import Glibc
@testable import App
import GATT
import HeadUnitCore
import Platform
@testable import SMP

/// A bond file as the state partition may hold it after a power cut or a
/// worn flash: decoded alone, and loaded through the bond store next to a
/// good bond.
enum BondStoreTarget {
    static let target = FuzzTarget(name: "bond-store", run: run, seeds: seeds)

    static let good = SMPTarget.bond
    /// A private folder for the files of one run, in memory when possible.
    static let directory: String = {
        let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
        var template = Array((base + "/fuzz-bond-store-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { fatalError("mkdtemp failed") }
        atexit { BondStoreTarget.removeDirectory() }
        return String(cString: made)
    }()

    static func removeDirectory() {
        for name in store.files.list() { unlink(directory + "/" + name) }
        rmdir(directory)
    }
    static let store = BondStore(files: StateFiles(directory: directory))

    static func put(_ name: String, _ bytes: [UInt8]) {
        guard let file = fopen(directory + "/" + name, "wb") else { fatalError("cannot write in \(directory)") }
        if !bytes.isEmpty { _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) } }
        fclose(file)
    }

    static func run(_ data: [UInt8]) {
        // The GATT client state kept beside a bond: one canonical encoding.
        if let state = try? BondedClientState.decode(data) {
            invariant(state.encoded() == data, "a client state decodes from bytes it does not encode to")
        }
        let decoded = try? BondRecord.decode(data)
        if let bond = decoded {
            // One canonical encoding: what loads is what was stored.
            invariant(bond.encoded() == data, "a bond decodes from bytes it does not encode to")
            invariant((7...16).contains(bond.keySize) && !bond.longTermKey.isAllZero, "a bond with an unusable key loaded")
            _ = BondRecord.find(FuzzPhone.phoneAddress, in: [bond])
        }
        // The store: the damaged file is skipped, the good one survives. File
        // I/O is slow, so only for inputs that look like a bond file.
        guard decoded != nil || data.starts(with: [0x4E, 0x4E, 0x42, 0x44]) else { return }
        put("bond-" + hexString(Array("Anna".utf8)), data)
        put("bond-" + hexString(Array("Ben".utf8)), good.encoded())
        let loaded = store.all()
        invariant(loaded.contains { $0.server == "Ben" && $0.bond == good }, "a damaged bond file took a good one with it")
        invariant(loaded.contains { $0.server == "Anna" } == (decoded != nil), "the store and the decoder disagree")
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
