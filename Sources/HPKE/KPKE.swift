/// K-PKE, the public-key encryption scheme under ML-KEM (FIPS 203 §5),
/// for k = 3, η₁ = η₂ = 2, d_u = 10, d_v = 4. Keys and ciphertexts are
/// read and written in place through pointers; polynomials live in the
/// workspace.
enum KPKE {
    static let k = 3
    static let polynomialBytes = 384
    static let encryptionKeyCount = 1184
    static let decryptionKeyCount = 1152
    static let uBytes = 320

    /// Â[row, column] ← SampleNTT(ρ ‖ column ‖ row) (Algorithm 13 line 6).
    @inline(__always)
    static func sampleMatrixEntry(rho: UnsafePointer<UInt8>, row: Int, column: Int, into a: Polynomial, _ w: MLKEMWorkspace) {
        Sampling.sampleNTT(rho: rho, j: UInt8(column), i: UInt8(row), into: a, keccak: w.keccak, buffer: &w.xofStream)
    }

    /// Algorithm 13: (ek_PKE, dk_PKE) from the 32-byte seed d.
    static func keyGen(d: UnsafePointer<UInt8>, encryptionKey ek: UnsafeMutablePointer<UInt8>,
                       decryptionKey dk: UnsafeMutablePointer<UInt8>, _ w: MLKEMWorkspace) {
        // (ρ, σ) ← G(d ‖ k)
        var kByte = UInt8(k)
        w.keccak.start(.sha3_512)
        w.keccak.absorb(d, count: 32)
        w.keccak.absorb(&kByte, count: 1)
        w.keccak.finish(into: w.seeds, count: 64)
        let rho = UnsafePointer(w.seeds)
        let sigma = UnsafePointer(w.seeds + 32)

        let s = w.polynomials.vector(k)
        let e = w.polynomials.polynomial()
        let a = w.polynomials.polynomial()
        let t = w.polynomials.polynomial()
        for i in 0..<k {
            Sampling.sampleCBD2(seed: sigma, nonce: UInt8(i), into: s[i], keccak: w.keccak, buffer: w.prfStream)
            NTT.forward(s[i])
            ByteEncoding.encode12(s[i], into: dk + polynomialBytes * i)
        }
        for i in 0..<k {
            w.polynomials.accumulator.update(repeating: 0, count: Polynomial.degree)
            for j in 0..<k {
                sampleMatrixEntry(rho: rho, row: i, column: j, into: a, w)
                NTT.multiplyAccumulate(a, s[j], into: w.polynomials.accumulator)
            }
            NTT.store(w.polynomials.accumulator, into: t)
            Sampling.sampleCBD2(seed: sigma, nonce: UInt8(k + i), into: e, keccak: w.keccak, buffer: w.prfStream)
            NTT.forward(e)
            t.add(e)
            ByteEncoding.encode12(t, into: ek + polynomialBytes * i)
        }
        (ek + polynomialBytes * k).update(from: rho, count: 32)
    }

    /// Algorithm 14: c ← Encrypt(ek_PKE, m, r). Runs on secret m and r in
    /// decapsulation: only the matrix sampling (from public ρ) branches on data.
    static func encrypt(encryptionKey ek: UnsafePointer<UInt8>, message m: UnsafePointer<UInt8>, randomness r: UnsafePointer<UInt8>,
                        ciphertext c: UnsafeMutablePointer<UInt8>, _ w: MLKEMWorkspace) {
        let rho = ek + polynomialBytes * k
        let t = w.polynomials.vector(k)
        let y = w.polynomials.vector(k)
        let a = w.polynomials.polynomial()
        let u = w.polynomials.polynomial()
        let accumulator = w.polynomials.accumulator
        for i in 0..<k {
            ByteEncoding.decode12(ek + polynomialBytes * i, into: t[i])
            Sampling.sampleCBD2(seed: r, nonce: UInt8(i), into: y[i], keccak: w.keccak, buffer: w.prfStream)
            NTT.forward(y[i])
        }
        // u = NTT⁻¹(Âᵀ ∘ ŷ) + e₁, one row at a time.
        for i in 0..<k {
            accumulator.update(repeating: 0, count: Polynomial.degree)
            for j in 0..<k {
                sampleMatrixEntry(rho: rho, row: j, column: i, into: a, w)
                NTT.multiplyAccumulate(a, y[j], into: accumulator)
            }
            NTT.store(accumulator, into: u)
            NTT.inverse(u)
            Sampling.sampleCBD2(seed: r, nonce: UInt8(k + i), into: a, keccak: w.keccak, buffer: w.prfStream)
            u.add(a)
            ByteEncoding.compressEncode10(u, into: c + uBytes * i)
        }
        // v = NTT⁻¹(t̂ᵀ ∘ ŷ) + e₂ + Decompress₁(m)
        NTT.innerProduct(t, y, into: u, accumulator: accumulator)
        NTT.inverse(u)
        Sampling.sampleCBD2(seed: r, nonce: UInt8(2 * k), into: a, keccak: w.keccak, buffer: w.prfStream)
        u.add(a)
        ByteEncoding.decodeDecompress1(m, into: a)
        u.add(a)
        ByteEncoding.compressEncode4(u, into: c + uBytes * k)
    }

    /// Algorithm 15: m ← Decrypt(dk_PKE, c).
    static func decrypt(decryptionKey dk: UnsafePointer<UInt8>, ciphertext c: UnsafePointer<UInt8>,
                        message m: UnsafeMutablePointer<UInt8>, _ w: MLKEMWorkspace) {
        let u = w.polynomials.polynomial()
        let s = w.polynomials.polynomial()
        let v = w.polynomials.polynomial()
        let accumulator = w.polynomials.accumulator
        accumulator.update(repeating: 0, count: Polynomial.degree)
        for i in 0..<k {
            ByteEncoding.decodeDecompress10(c + uBytes * i, into: u)
            NTT.forward(u)
            ByteEncoding.decode12(dk + polynomialBytes * i, into: s)
            NTT.multiplyAccumulate(s, u, into: accumulator)
        }
        NTT.store(accumulator, into: u)
        NTT.inverse(u)
        ByteEncoding.decodeDecompress4(c + uBytes * k, into: v)
        v.subtract(u)
        ByteEncoding.compressEncode1(v, into: m)
    }
}
