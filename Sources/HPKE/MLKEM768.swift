/// ML-KEM-768 (FIPS 203 §6): the deterministic "internal" algorithms, the
/// randomness given by the caller. X-Wing derives d and z from its seed and
/// only ever decapsulates; encapsulation is here for the published vectors
/// and because decapsulation re-encrypts.
public enum MLKEM768 {
    public static let encapsulationKeyCount = 1184
    public static let decapsulationKeyCount = 2400
    public static let ciphertextCount = 1088
    public static let sharedKeyCount = 32

    /// Algorithm 16, ML-KEM.KeyGen_internal(d, z) → (ek, dk).
    public static func keyGen(d: [UInt8], z: [UInt8]) throws(HPKEError) -> (encapsulationKey: [UInt8], decapsulationKey: [UInt8]) {
        guard d.count == 32, z.count == 32 else { throw .invalidLength }
        var ek = [UInt8](repeating: 0, count: encapsulationKeyCount)
        var dk = [UInt8](repeating: 0, count: decapsulationKeyCount)
        let failed = d.withUnsafeBufferPointer { d in
            z.withUnsafeBufferPointer { z in
                ek.withUnsafeMutableBufferPointer { ek in
                    dk.withUnsafeMutableBufferPointer { dk in
                        keyGen(d: d.baseAddress!, z: z.baseAddress!, encapsulationKey: ek.baseAddress!, decapsulationKey: dk.baseAddress!)
                    }
                }
            }
        }
        guard !failed else {
            wipe(&dk)
            throw .libcrypto
        }
        return (ek, dk)
    }

    /// Algorithm 16 on buffers; true when libcrypto failed.
    static func keyGen(d: UnsafePointer<UInt8>, z: UnsafePointer<UInt8>,
                       encapsulationKey ek: UnsafeMutablePointer<UInt8>, decapsulationKey dk: UnsafeMutablePointer<UInt8>) -> Bool {
        let w = MLKEMWorkspace()
        KPKE.keyGen(d: d, encryptionKey: ek, decryptionKey: dk, w)
        // dk = dk_PKE ‖ ek ‖ H(ek) ‖ z
        (dk + KPKE.decryptionKeyCount).update(from: ek, count: encapsulationKeyCount)
        w.keccak.hash(.sha3_256, ek, count: encapsulationKeyCount, into: dk + KPKE.decryptionKeyCount + encapsulationKeyCount, outputCount: 32)
        (dk + decapsulationKeyCount - 32).update(from: z, count: 32)
        return w.keccak.failed
    }

    /// Algorithm 17, ML-KEM.Encaps_internal(ek, m) → (K, c).
    public static func encapsulate(encapsulationKey: [UInt8], message: [UInt8]) throws(HPKEError) -> (sharedKey: [UInt8], ciphertext: [UInt8]) {
        guard encapsulationKey.count == encapsulationKeyCount, message.count == 32 else { throw .invalidLength }
        var key = [UInt8](repeating: 0, count: sharedKeyCount)
        var ciphertext = [UInt8](repeating: 0, count: ciphertextCount)
        let w = MLKEMWorkspace()
        encapsulationKey.withUnsafeBufferPointer { ek in
            message.withUnsafeBufferPointer { m in
                ciphertext.withUnsafeMutableBufferPointer { c in
                    // (K, r) ← G(m ‖ H(ek))
                    w.keccak.hash(.sha3_256, ek.baseAddress!, count: encapsulationKeyCount, into: w.seeds + 64, outputCount: 32)
                    w.keccak.start(.sha3_512)
                    w.keccak.absorb(m.baseAddress!, count: 32)
                    w.keccak.absorb(w.seeds + 64, count: 32)
                    w.keccak.finish(into: w.seeds, count: 64)
                    KPKE.encrypt(encryptionKey: ek.baseAddress!, message: m.baseAddress!, randomness: w.seeds + 32,
                                 ciphertext: c.baseAddress!, w)
                }
            }
        }
        key.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: w.seeds, count: sharedKeyCount) }
        guard !w.keccak.failed else { throw .libcrypto }
        return (key, ciphertext)
    }

    /// Algorithm 18, ML-KEM.Decaps_internal(dk, c) → K, with implicit
    /// rejection: a ciphertext that does not re-encrypt to itself yields
    /// K̄ = J(z ‖ c) instead, chosen without a branch.
    public static func decapsulate(decapsulationKey: [UInt8], ciphertext: [UInt8]) throws(HPKEError) -> [UInt8] {
        guard decapsulationKey.count == decapsulationKeyCount, ciphertext.count == ciphertextCount else { throw .invalidLength }
        var key = [UInt8](repeating: 0, count: sharedKeyCount)
        let failed = decapsulationKey.withUnsafeBufferPointer { dk in
            ciphertext.withUnsafeBufferPointer { c in
                key.withUnsafeMutableBufferPointer { key in
                    decapsulate(decapsulationKey: dk.baseAddress!, ciphertext: c.baseAddress!, sharedKey: key.baseAddress!)
                }
            }
        }
        guard !failed else { throw .libcrypto }
        return key
    }

    /// Algorithm 18 on buffers; true when libcrypto failed.
    static func decapsulate(decapsulationKey dk: UnsafePointer<UInt8>, ciphertext c: UnsafePointer<UInt8>,
                            sharedKey: UnsafeMutablePointer<UInt8>) -> Bool {
        let w = MLKEMWorkspace()
        let dkPKE = dk
        let ekPKE = dk + KPKE.decryptionKeyCount
        let h = ekPKE + encapsulationKeyCount
        let z = h + 32
        let kPrime = w.seeds, rPrime = w.seeds + 32, mPrime = w.seeds + 64, kBar = w.seeds + 96

        KPKE.decrypt(decryptionKey: dkPKE, ciphertext: c, message: mPrime, w)
        // (K', r') ← G(m' ‖ h)
        w.keccak.start(.sha3_512)
        w.keccak.absorb(mPrime, count: 32)
        w.keccak.absorb(h, count: 32)
        w.keccak.finish(into: kPrime, count: 64)
        // K̄ ← J(z ‖ c)
        w.keccak.start(.shake256)
        w.keccak.absorb(z, count: 32)
        w.keccak.absorb(c, count: ciphertextCount)
        w.keccak.finish(into: kBar, count: 32)

        KPKE.encrypt(encryptionKey: ekPKE, message: mPrime, randomness: rPrime, ciphertext: w.ciphertext, w)
        let equal = ConstantTime.equalMask(c, w.ciphertext, count: ciphertextCount)
        sharedKey.update(from: kBar, count: 32)
        ConstantTime.select(sharedKey, from: kPrime, count: 32, mask: equal)
        return w.keccak.failed
    }
}
