/// Arithmetic modulo q = 3329, the ML-KEM prime (FIPS 203 §2.3), without
/// division or branches: every step runs on secret coefficients in
/// decapsulation, and a hardware divide takes a value-dependent time.
enum Field {
    static let q: UInt32 = 3329
    /// floor(2^32 / q): multiplying by it and shifting estimates x / q to within one.
    static let barrettFactor: UInt64 = 1_290_167

    /// x - q when x >= q, else x; for x < 2q.
    @inline(__always)
    static func subtractQ(_ x: UInt32) -> UInt32 {
        let reduced = x &- q
        // The top bit of reduced is set exactly when x < q: add q back then.
        return reduced &+ (q & (0 &- (reduced >> 31)))
    }

    /// floor(x / q) for any 32-bit x.
    @inline(__always)
    static func quotient(_ x: UInt32) -> UInt32 {
        var estimate = UInt32(truncatingIfNeeded: (UInt64(x) &* barrettFactor) >> 32)
        // The estimate is low by at most one: add one when the remainder is still >= q.
        let remainder = x &- estimate &* q
        estimate &+= 1 &- ((remainder &- q) >> 31)
        return estimate
    }

    /// x mod q for any 32-bit x.
    @inline(__always)
    static func reduce(_ x: UInt32) -> UInt32 {
        let estimate = UInt32(truncatingIfNeeded: (UInt64(x) &* barrettFactor) >> 32)
        return subtractQ(x &- estimate &* q)
    }

    /// a · b mod q for a, b < q.
    @inline(__always)
    static func multiply(_ a: UInt32, _ b: UInt32) -> UInt32 { reduce(a &* b) }
}
