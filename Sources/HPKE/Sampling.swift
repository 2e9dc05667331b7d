/// Sampling of ML-KEM polynomials (FIPS 203 §4.2.2, Algorithms 7 and 8).
enum Sampling {
    /// SHAKE128 output for SampleNTT is taken three rate blocks at a time.
    /// OpenSSL 3.0 can only squeeze once per context, so in the rare case
    /// three blocks hold fewer than 256 accepted values the stream is
    /// recomputed longer and read on from where it stopped.
    static let xofBlock = 168

    /// â ← SampleNTT(ρ ‖ j ‖ i): rejection sampling of uniform coefficients
    /// from the XOF. Only the public seed ρ goes in, so the data-dependent
    /// loop leaks nothing secret.
    static func sampleNTT(rho: UnsafePointer<UInt8>, j: UInt8, i: UInt8, into a: Polynomial, keccak: Keccak, buffer: inout [UInt8]) {
        var indices = (j, i)
        var produced = 0
        var offset = 0
        var length = 3 * xofBlock
        while true {
            if buffer.count < length { buffer = [UInt8](repeating: 0, count: length) }
            keccak.start(.shake128)
            keccak.absorb(rho, count: 32)
            withUnsafeBytes(of: &indices) { keccak.absorb($0.baseAddress!, count: 2) }
            buffer.withUnsafeMutableBufferPointer { stream in
                keccak.finish(into: stream.baseAddress!, count: length)
                while produced < 256 && offset + 3 <= length {
                    let b0 = UInt32(stream[offset]), b1 = UInt32(stream[offset + 1]), b2 = UInt32(stream[offset + 2])
                    offset += 3
                    let d1 = b0 | ((b1 & 0x0F) << 8)
                    let d2 = (b1 >> 4) | (b2 << 4)
                    if d1 < Field.q {
                        a[produced] = d1
                        produced += 1
                    }
                    if d2 < Field.q && produced < 256 {
                        a[produced] = d2
                        produced += 1
                    }
                }
            }
            // A failed hash leaves zeros, which are all accepted: the loop ends.
            if produced == 256 { return }
            length += 2 * xofBlock
        }
    }

    /// f ← SamplePolyCBD₂(PRF₂(s, n)) (Algorithm 8 with η = 2, PRF = SHAKE256
    /// of s ‖ n, 128 bytes). Each coefficient is (b0 + b1) − (b2 + b3) of four
    /// bits, computed without branches: the bits are secret.
    static func sampleCBD2(seed: UnsafePointer<UInt8>, nonce: UInt8, into f: Polynomial, keccak: Keccak, buffer: UnsafeMutablePointer<UInt8>) {
        var n = nonce
        keccak.start(.shake256)
        keccak.absorb(seed, count: 32)
        keccak.absorb(&n, count: 1)
        keccak.finish(into: buffer, count: 128)
        for index in 0..<128 {
            let byte = UInt32(buffer[index])
            // Pairwise bit sums: each 2-bit field of `sums` holds b(2k) + b(2k+1).
            let sums = (byte & 0x55) &+ ((byte >> 1) & 0x55)
            for half in 0..<2 {
                let nibble = sums >> (4 * UInt32(half))
                let x = nibble & 3
                let y = (nibble >> 2) & 3
                f[2 * index + half] = Field.subtractQ(x &+ Field.q &- y)
            }
        }
        wipe(buffer, count: 128)
    }
}
