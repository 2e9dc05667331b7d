/// The number-theoretic transform of FIPS 203 §4.3 (Algorithms 9-12).
/// Table indices are loop counters, never coefficient values, so the
/// memory access pattern is the same for every key.
enum NTT {
    /// ζ^BitRev7(i) mod q for ζ = 17, i = 0..<128 (Algorithms 9 and 10).
    static let zetas: [UInt16] = [
        1, 1729, 2580, 3289, 2642, 630, 1897, 848, 1062, 1919, 193, 797, 2786, 3260, 569, 1746,
        296, 2447, 1339, 1476, 3046, 56, 2240, 1333, 1426, 2094, 535, 2882, 2393, 2879, 1974, 821,
        289, 331, 3253, 1756, 1197, 2304, 2277, 2055, 650, 1977, 2513, 632, 2865, 33, 1320, 1915,
        2319, 1435, 807, 452, 1438, 2868, 1534, 2402, 2647, 2617, 1481, 648, 2474, 3110, 1227, 910,
        17, 2761, 583, 2649, 1637, 723, 2288, 1100, 1409, 2662, 3281, 233, 756, 2156, 3015, 3050,
        1703, 1651, 2789, 1789, 1847, 952, 1461, 2687, 939, 2308, 2437, 2388, 733, 2337, 268, 641,
        1584, 2298, 2037, 3220, 375, 2549, 2090, 1645, 1063, 319, 2773, 757, 2099, 561, 2466, 2594,
        2804, 1092, 403, 1026, 1143, 2150, 2775, 886, 1722, 1212, 1874, 1029, 2110, 2935, 885, 2154,
    ]

    /// 128^-1 mod q: the scaling that ends the inverse transform.
    static let inverseOf128: UInt32 = 3303

    /// f ← NTT(f), in place (Algorithm 9).
    static func forward(_ f: Polynomial) {
        zetas.withUnsafeBufferPointer { zetas in
            let c = f.coefficients
            var k = 1
            var length = 128
            while length >= 2 {
                var start = 0
                while start < 256 {
                    let zeta = UInt32(zetas[k])
                    k += 1
                    for j in start..<(start + length) {
                        let t = Field.multiply(zeta, UInt32(c[j + length]))
                        let a = UInt32(c[j])
                        c[j + length] = UInt16(truncatingIfNeeded: Field.subtractQ(a &+ Field.q &- t))
                        c[j] = UInt16(truncatingIfNeeded: Field.subtractQ(a &+ t))
                    }
                    start += 2 * length
                }
                length >>= 1
            }
        }
    }

    /// f ← NTT⁻¹(f), in place (Algorithm 10).
    static func inverse(_ f: Polynomial) {
        zetas.withUnsafeBufferPointer { zetas in
            let c = f.coefficients
            var k = 127
            var length = 2
            while length <= 128 {
                var start = 0
                while start < 256 {
                    let zeta = UInt32(zetas[k])
                    k -= 1
                    for j in start..<(start + length) {
                        let a = UInt32(c[j])
                        let b = UInt32(c[j + length])
                        c[j] = UInt16(truncatingIfNeeded: Field.subtractQ(a &+ b))
                        c[j + length] = UInt16(truncatingIfNeeded: Field.multiply(zeta, b &+ Field.q &- a))
                    }
                    start += 2 * length
                }
                length <<= 1
            }
            for j in 0..<256 { c[j] = UInt16(truncatingIfNeeded: Field.multiply(UInt32(c[j]), inverseOf128)) }
        }
    }

    /// accumulator += f ∘ g without reducing (Algorithms 11 and 12). Each
    /// product adds less than 2q² < 2^25, so up to 64 of them fit a UInt32.
    /// The 128 moduli X² − γ come in pairs γ = ±ζ^BitRev7(64 + i): the
    /// second half of the NTT's own table gives them.
    static func multiplyAccumulate(_ f: Polynomial, _ g: Polynomial, into accumulator: UnsafeMutablePointer<UInt32>) {
        zetas.withUnsafeBufferPointer { zetas in
            for i in 0..<64 {
                let zeta = UInt32(zetas[64 + i])
                baseCaseMultiply(f, g, at: 4 * i, gamma: zeta, into: accumulator)
                baseCaseMultiply(f, g, at: 4 * i + 2, gamma: Field.q - zeta, into: accumulator)
            }
        }
    }

    /// (a0 + a1·X)(b0 + b1·X) mod X² − γ, added to accumulator[j], [j + 1] (Algorithm 12).
    @inline(__always)
    private static func baseCaseMultiply(_ f: Polynomial, _ g: Polynomial, at j: Int, gamma: UInt32,
                                         into accumulator: UnsafeMutablePointer<UInt32>) {
        let a0 = f[j], a1 = f[j + 1]
        let b0 = g[j], b1 = g[j + 1]
        accumulator[j] &+= a0 &* b0 &+ Field.multiply(a1, b1) &* gamma
        accumulator[j + 1] &+= a0 &* b1 &+ a1 &* b0
    }

    /// h ← Σ fᵢ ∘ gᵢ over two vectors, reduced (the inner products of Algorithms 13-15).
    static func innerProduct(_ f: [Polynomial], _ g: [Polynomial], into h: Polynomial, accumulator: UnsafeMutablePointer<UInt32>) {
        accumulator.update(repeating: 0, count: Polynomial.degree)
        for i in 0..<f.count { multiplyAccumulate(f[i], g[i], into: accumulator) }
        store(accumulator, into: h)
    }

    /// h ← accumulator mod q.
    @inline(__always)
    static func store(_ accumulator: UnsafeMutablePointer<UInt32>, into h: Polynomial) {
        for j in 0..<Polynomial.degree { h[j] = Field.reduce(accumulator[j]) }
    }
}
