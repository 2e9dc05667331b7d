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
        var activationTimes: [Int64] = []
        var envelopeTimes: [Int64] = []
        for _ in 0..<passes {
            var start = Clock.monotonicMicroseconds()
            guard measuredActivations(activations, workload) else {
                print("crypto-bench: key activation gave another key")
                return 1
            }
            activationTimes.append((Clock.monotonicMicroseconds() - start) * 1000 / Int64(activations))
            start = Clock.monotonicMicroseconds()
            guard measuredEnvelopes(envelopes, workload) else {
                print("crypto-bench: an envelope did not open")
                return 1
            }
            envelopeTimes.append((Clock.monotonicMicroseconds() - start) * 1000 / Int64(max(envelopes, 1)))
        }
        let activation = median(activationTimes)
        let envelope = median(envelopeTimes)
        print("key activation (seed -> key pair, decapsulation, key schedule, export): \(microseconds(activation)) us, median of \(passes) passes of \(activations)")
        print("one envelope (export, AES-256-GCM open of \(workload.plaintext.count) bytes): \(microseconds(envelope)) us, median of \(passes) passes of \(envelopes)")
        print("{\"activations\": \(activations), \"envelopes\": \(envelopes), \"passes\": \(passes), "
              + "\"ns_per_activation\": \(activation), \"ns_per_envelope\": \(envelope), \"envelope_bytes\": \(workload.plaintext.count)}")
        return 0
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

    private static func median(_ values: [Int64]) -> Int64 { values.sorted()[values.count / 2] }

    private static func microseconds(_ nanoseconds: Int64) -> String {
        let tenths = (nanoseconds + 50) / 100
        return "\(tenths / 10).\(tenths % 10)"
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
