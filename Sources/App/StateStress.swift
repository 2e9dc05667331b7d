import BluetoothCore
import Platform
import SMP

/// Rewrites the state files in a loop with changing content (see
/// Tests/Tools/StateStress): the workload of the power-cut test.
public enum StateStress {
    public static func run(directory: String) -> Never {
        let files = StateFiles(directory: directory)
        do { try files.prepare() } catch {
            StandardErrorLog.line("\(error)")
            exitProcess(1)
        }
        let bonds = BondStore(files: files)
        let pairing = PairingStore(files: files)
        _ = pairing.clientName()
        var round: UInt64 = 0
        while true {
            round += 1
            let key = SystemRandom.bytes(16)
            guard let ltk = LongTermKey(bytes: key), let irk = IdentityResolvingKey(bytes: SystemRandom.bytes(16)) else { continue }
            let bond = BondRecord(peerIdentityAddress: BluetoothAddress(value: round, kind: .public), peerIRK: irk,
                                  longTermKey: ltk, ediv: 0, rand: 0, keySize: 16, authenticated: true,
                                  secureConnections: true, localIRK: nil)
            bonds.save(bond, for: "Phone-\(round % 3)")
            pairing.remember("Phone-\(round % 3)")
        }
    }
}
