// NotifBridge cryptography benchmark: key activation (X-Wing key pair from
// the seed, decapsulation, HPKE key schedule, export) and one envelope
// (export, AES-256-GCM open of 1 KiB), timed; the same workload as the
// firmware's `headunit crypto-bench` (Sources/App/CryptoBenchCommand.swift).
//
//   swift build -c release --product hpke-bench
//   .build/release/hpke-bench [ACTIVATIONS [ENVELOPES [PASSES]]]
// Instructions: scripts/bench runs it under callgrind with
// --toggle-collect='*measuredActivations*' (and '*measuredEnvelopes*') for
// two counts each.
import App
import Platform

let counts = CommandLine.arguments.dropFirst().map { Int($0) ?? 0 }
guard counts.count <= 3, counts.allSatisfy({ $0 > 0 }) else {
    print("usage: hpke-bench [ACTIVATIONS [ENVELOPES [PASSES]]]  (each at least 1)")
    exitProcess(2)
}
exitProcess(CryptoBenchCommand.report(activations: counts.count > 0 ? counts[0] : 200,
                                      envelopes: counts.count > 1 ? counts[1] : 2000,
                                      passes: counts.count > 2 ? counts[2] : 5))
