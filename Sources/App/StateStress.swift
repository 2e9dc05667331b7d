import ANCS
import BluetoothCore
import CLinux
import HPKE
import NavigationNotifier
import NotifBridge
import Platform
import SMP

/// `headunit state-stress DIR` (not in the usage text: a test workload). It
/// loads every kind of state file the firmware keeps with the firmware's own
/// loaders, reports what it found, then rewrites them all in a loop through
/// the firmware's own stores until it is killed. The power-cut test kills it
/// with SIGKILL at random moments and checks that each restart loads the
/// last good state.
///
/// stdout, one line each, written straight to the descriptor so that a
/// line is out before the step it announces begins:
///   `loaded bond=V server=V apps=V irk=V client=V keys=V`  (V: round number, `none`, or `bad`)
///   `begin KIND V` before a write (V: round) or removal (V: `none`)
///   `ok KIND V` once it returned
/// Each file holds its round number, so the test knows which write it holds.
enum StateStress {
    static let server = "Phone"
    static let kinds = ["bond", "server", "apps", "irk", "client", "keys"]

    static func run(directory: String) -> Int32 {
        let files = StateFiles(directory: directory)
        do { try files.prepare() } catch {
            StandardErrorLog.line("state-stress: \(error)")
            return 1
        }
        let bonds = BondStore(files: files)
        let pairing = PairingStore(files: files)
        let apps = AppNameStore(files: files)
        let loaded = load(files)
        var report: [String] = []
        var round: UInt64 = 0
        for kind in kinds {
            switch loaded[kind] {
            case .some(.some(.some(let n))):
                report.append("\(kind)=\(n)")
                round = max(round, n)
            case .some(.some(.none)): report.append("\(kind)=bad")
            default: report.append("\(kind)=none")
            }
        }
        say("loaded " + report.joined(separator: " "))
        // Each run starts at a random kind of file, so that the kills spread
        // over all of them rather than falling on the first write.
        var skip = Int(SystemRandom.bytes(1)[0] % UInt8(kinds.count))
        func step(_ kind: String, _ value: String, _ work: () -> Void) {
            if skip > 0 {
                skip -= 1
                return
            }
            say("begin \(kind) \(value)")
            work()
            say("ok \(kind) \(value)")
        }
        while true {
            round += 1
            step("bond", "\(round)") {
                guard let ltk = LongTermKey(bytes: SystemRandom.bytes(16)),
                      let irk = IdentityResolvingKey(bytes: SystemRandom.bytes(16)) else { return }
                let bond = BondRecord(peerIdentityAddress: BluetoothAddress(value: round, kind: .public), peerIRK: irk,
                                      longTermKey: ltk, ediv: 0, rand: 0, keySize: 16, authenticated: true,
                                      secureConnections: true, localIRK: nil)
                bonds.save(bond, for: server)
            }
            step("server", "\(round)") { pairing.remember("\(server)-\(round)") }
            step("apps", "\(round)") {
                var cache = AppNameCache()
                cache.insert("Maps", for: AppIdentifier("com.google.Maps"))
                cache.insert("Round \(round)", for: AppIdentifier("com.example.round"))
                apps.save(cache)
            }
            step("irk", "\(round)") { try? files.write(BondStore.localIRKFile, numberedKey(round)) }
            step("client", "\(round)") { try? files.write(PairingStore.clientNameFile, Array("HU-\(round)\n".utf8)) }
            step("keys", "\(round)") {
                // A NotifBridge key ring whose one generation's secret carries the round.
                var ring = KeyRing()
                _ = ring.activate(KeyGeneration(exchangeID: ExchangeID(BluetoothUUID(high: round, low: 1)), info: Array("XWing-Version1-HU".utf8),
                                                exporterSecret: numberedKey(round) + SystemRandom.bytes(16)), now: .zero)
                try? files.write(HeadUnit.notifBridgeKeyFile, NotifBridgeReceiver<HPKECryptography>.keyFile(ring, now: .zero))
            }
            if round % 8 == 0 {
                // "Unpair": the remembered server and its bond go.
                step("server", "none") { pairing.forgetServer() }
                step("bond", "none") { bonds.delete(for: server) }
            }
        }
    }

    /// What a restart finds, read with the loaders the firmware starts with:
    /// kind → nil (no file), .some(nil) (damaged), .some(round).
    static func load(_ files: StateFiles) -> [String: UInt64??] {
        var out: [String: UInt64??] = [:]
        let names = files.list()
        let bondFile = names.contains { $0.hasPrefix(BondStore.prefix) }
        if bondFile {
            let bond = BondStore(files: files).bond(for: server)
            out["bond"] = .some(bond.map { $0.peerIdentityAddress.value })
        }
        if names.contains(PairingStore.serverFile) {
            let name = PairingStore(files: files).rememberedServer()
            out["server"] = .some(name.flatMap { number(after: "\(server)-", in: $0) })
        }
        if names.contains(AppNameStore.file) {
            let cache = try? AppNameStore(files: files).stored()
            out["apps"] = .some(cache.flatMap { $0.name(for: AppIdentifier("com.example.round")) }
                .flatMap { number(after: "Round ", in: $0) })
        }
        if names.contains(BondStore.localIRKFile) {
            let key = files.read(BondStore.localIRKFile).flatMap { IdentityResolvingKey(bytes: $0) }
            out["irk"] = .some(key.flatMap { roundOf(key: $0.bytes) })
        }
        if names.contains(PairingStore.clientNameFile) {
            let name = files.read(PairingStore.clientNameFile).flatMap { PairedClientName.parse(line: $0) }
            out["client"] = .some(name.flatMap { number(after: "HU-", in: $0) })
        }
        if names.contains(HeadUnit.notifBridgeKeyFile) {
            let ring = files.read(HeadUnit.notifBridgeKeyFile).flatMap { try? NotifBridgeReceiver<HPKECryptography>.keyRing(inKeyFile: $0, now: .zero) }
            out["keys"] = .some(ring?.newest.flatMap { roundOf(key: $0.exporterSecret) })
        }
        return out
    }

    /// A key whose first eight bytes are the round (little-endian), the rest random.
    static func numberedKey(_ round: UInt64) -> [UInt8] {
        var writer = ByteWriter(capacity: 16)
        writer.u64(round)
        writer.append(SystemRandom.bytes(8))
        return writer.bytes
    }

    static func roundOf(key: [UInt8]) -> UInt64? {
        var reader = ByteReader(key)
        return reader.u64()
    }

    static func number(after prefix: String, in text: String) -> UInt64? {
        guard text.hasPrefix(prefix) else { return nil }
        return UInt64(String(text.dropFirst(prefix.count)))
    }

    private static func say(_ line: String) {
        let bytes = Array((line + "\n").utf8)
        var offset = 0
        while offset < bytes.count {
            guard let n = try? FileDescriptor.write(1, bytes[offset...]), n > 0 else { return }
            offset += n
        }
    }
}
