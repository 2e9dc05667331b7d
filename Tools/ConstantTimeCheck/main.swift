// The constant-time check of ML-KEM-768 decapsulation, run by scripts/ct-check
// under valgrind memcheck. The secret parts of the decapsulation key (dk_PKE,
// the secret vector ŝ, and z, the implicit-rejection seed) are marked
// undefined; memcheck then reports every conditional branch and every memory
// address computed from them, or from anything derived from them (m', K', r',
// K̄, the re-encrypted ciphertext). The public parts (ek and H(ek)) and the
// ciphertext stay defined. A clean run has no such report.
//
// Checked: the control first (a deliberate branch on a marked byte), then a valid ciphertext (K' chosen) and a modified one (K̄ chosen), so
// both outcomes of the comparison run through the same instructions.
import CMemcheck
import Glibc
import HPKE

func fail(_ message: String) -> Never {
    print("ct-check: " + message)
    exit(1)
}

guard nn_memcheck_running() != 0 || CommandLine.arguments.contains("--without-valgrind") else {
    fail("run me under valgrind (scripts/ct-check)")
}

// The control: a branch on a marked byte, which memcheck must report, so a
// clean run below means something (scripts/ct-check runs this first).
if CommandLine.arguments.contains("--control") {
    var secret = randomBytes(1)
    secret.withUnsafeMutableBytes { nn_memcheck_secret($0.baseAddress!, 1) }
    print(secret[0] & 1 == 1 ? "ct-check: control (odd)" : "ct-check: control (even)")
    exit(0)
}

do throws(HPKEError) {
    let (ek, dk) = try MLKEM768.keyGen(d: randomBytes(32), z: randomBytes(32))
    let (expected, ciphertext) = try MLKEM768.encapsulate(encapsulationKey: ek, message: randomBytes(32))
    var modified = ciphertext
    modified[517] ^= 0x04

    for (name, c) in [("valid ciphertext", ciphertext), ("modified ciphertext", modified)] {
        var secretKey = dk
        secretKey.withUnsafeMutableBytes { bytes in
            // dk = dk_PKE (1152) ‖ ek (1184) ‖ H(ek) (32) ‖ z (32)
            nn_memcheck_secret(bytes.baseAddress!, 1152)
            nn_memcheck_secret(bytes.baseAddress! + 2368, 32)
        }
        var key = try MLKEM768.decapsulate(decapsulationKey: secretKey, ciphertext: c)
        // The shared key is the output: declassified only to check it here.
        key.withUnsafeMutableBytes { nn_memcheck_public($0.baseAddress!, $0.count) }
        guard (key == expected) == (c == ciphertext) else { fail("\(name): wrong key") }
        print("ct-check: \(name) decapsulated")
    }
} catch {
    fail("\(error)")
}
