import HPKE
import Platform

/// `headunit crypto-bench [--iterations N] [--passes P]`: the cost of the
/// NotifBridge cryptography on this machine, a diagnostic for the firmware
/// (run under qemu-aarch64 or on the board). Key activation is what an
/// `activate` packet costs: the X-Wing key pair from the seed, checked
/// against the public key, decapsulation, the HPKE key schedule and one
/// export. An envelope is one export and the AES-256-GCM open of a 1 KiB
/// blob. Benchmarks/HPKEBench runs the same under callgrind.
public enum CryptoBenchCommand {
    static func run(_ args: Arguments) throws(Arguments.UsageError) -> Int32 {
        let iterations = try args.int("iterations", default: 100)
        let passes = try args.int("passes", default: 5)
        guard iterations > 0, passes > 0 else { throw Arguments.UsageError(description: "--iterations and --passes: at least 1") }
        return report(activations: iterations, envelopes: iterations * 10, passes: passes)
    }

    /// Measures, prints one line per figure and a JSON line last; 1 when the
    /// results are wrong (then the figures would mean nothing).
    public static func report(activations: Int, envelopes: Int, passes: Int) -> Int32 {
        guard let workload = CryptoWorkload() else {
            print("crypto-bench: the NotifBridge cryptography failed its own round trip")
            return 1
        }
        var activation = Timings()
        var envelope = Timings()
        for _ in 0..<passes {
            var start = Timings.Mark()
            guard measuredActivations(activations, workload) else {
                print("crypto-bench: key activation gave another key")
                return 1
            }
            activation.add(since: start, count: activations)
            start = Timings.Mark()
            guard measuredEnvelopes(envelopes, workload) else {
                print("crypto-bench: an envelope did not open")
                return 1
            }
            envelope.add(since: start, count: envelopes)
        }
        print("key activation (seed -> key pair, decapsulation, key schedule, export): \(activation.summary), median of \(passes) passes of \(activations)")
        print("one envelope (export, AES-256-GCM open of \(workload.plaintext.count) bytes): \(envelope.summary), median of \(passes) passes of \(envelopes)")
        print("{\"activations\": \(activations), \"envelopes\": \(envelopes), \"passes\": \(passes), "
              + "\"ns_per_activation\": \(activation.wall), \"cpu_ns_per_activation\": \(activation.cpu), "
              + "\"ns_per_envelope\": \(envelope.wall), \"cpu_ns_per_envelope\": \(envelope.cpu), "
              + "\"envelope_bytes\": \(workload.plaintext.count)}")
        return 0
    }

    /// Per-operation times of each pass, wall clock and the thread's CPU
    /// time (on a shared machine the second is the cost, the first also
    /// counts waiting for a core).
    struct Timings {
        struct Mark {
            let wall = Clock.monotonicMicroseconds() * 1000
            let cpu = Clock.threadCPUNanoseconds()
        }
        private var walls: [Int64] = []
        private var cpus: [Int64] = []

        mutating func add(since start: Mark, count: Int) {
            let end = Mark()
            walls.append((end.wall - start.wall) / Int64(count))
            cpus.append((end.cpu - start.cpu) / Int64(count))
        }

        var wall: Int64 { walls.sorted()[walls.count / 2] }
        var cpu: Int64 { cpus.sorted()[cpus.count / 2] }
        var summary: String { "\(microseconds(cpu)) us CPU (\(microseconds(wall)) us wall)" }

        private func microseconds(_ nanoseconds: Int64) -> String {
            let tenths = (nanoseconds + 50) / 100
            return "\(tenths / 10).\(tenths % 10)"
        }
    }

    /// `count` key activations; the name is what callgrind's --toggle-collect matches.
    @inline(never)
    public static func measuredActivations(_ count: Int, _ workload: CryptoWorkload) -> Bool {
        var correct = true
        for _ in 0..<count { correct = workload.activate() == workload.expectedKey && correct }
        return correct
    }

    /// `count` envelopes opened; the name is what callgrind's --toggle-collect matches.
    @inline(never)
    public static func measuredEnvelopes(_ count: Int, _ workload: CryptoWorkload) -> Bool {
        var correct = true
        for _ in 0..<count { correct = workload.openEnvelope() == workload.plaintext && correct }
        return correct
    }
}

/// One prepared key exchange and envelope, made with the phone's side of
/// X-Wing (encapsulation with fixed randomness) so every run is the same.
public final class CryptoWorkload {
    let seed: [UInt8] = (0..<32).map { UInt8($0) }
    let publicKey: [UInt8]
    let encapsulatedKey: [UInt8]
    let info = Array("XWing-Version1-BENCHMARK".utf8)
    let context = Array("XWing-Version1-BENCHMARK-HostToAccessory-5E8F3A2C-1B7D-4C9E-8F00-0123456789AB".utf8)
    let expectedKey: [UInt8]
    let plaintext: [UInt8] = (0..<1024).map { UInt8(truncatingIfNeeded: $0 &* 7) }
    let sealed: [UInt8]
    let exporterSecret: [UInt8]

    public init?() {
        do throws(HPKEError) {
            publicKey = try XWingPrivateKey(seed: seed).publicKey
            let (sharedSecret, encapsulatedKey) = try XWing.encapsulate(publicKey: publicKey, eseed: (0..<64).map { UInt8(255 - $0) })
            self.encapsulatedKey = encapsulatedKey
            let exporter = HPKEExporter(sharedSecret: sharedSecret, info: info)
            exporterSecret = exporter.exporterSecret
            expectedKey = exporter.export(context: context, length: 32)
            sealed = try AES256GCM.seal(key: expectedKey, nonce: randomBytes(12), plaintext: plaintext)
        } catch {
            return nil
        }
        guard activate() == expectedKey, openEnvelope() == plaintext else { return nil }
    }

    /// Seed and encapsulated key in, the envelope key of one session out.
    func activate() -> [UInt8]? {
        guard let key = try? XWingPrivateKey(seed: seed, publicKey: publicKey),
              let sharedSecret = try? key.decapsulate(encapsulatedKey) else { return nil }
        return HPKEExporter(sharedSecret: sharedSecret, info: info).export(context: context, length: 32)
    }

    /// A stored key generation opening one envelope.
    func openEnvelope() -> [UInt8]? {
        let key = HPKEExporter(exporterSecret: exporterSecret).export(context: context, length: 32)
        return try? AES256GCM.open(key: key, sealed: sealed)
    }
}
