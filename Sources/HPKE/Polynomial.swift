/// A polynomial of R_q or T_q (FIPS 203 §2.4): 256 coefficients in [0, q),
/// kept as UInt16 in caller-owned scratch memory so that no operation
/// allocates per polynomial or per coefficient.
struct Polynomial {
    static let degree = 256
    let coefficients: UnsafeMutablePointer<UInt16>

    @inline(__always)
    subscript(index: Int) -> UInt32 {
        get { UInt32(coefficients[index]) }
        nonmutating set { coefficients[index] = UInt16(truncatingIfNeeded: newValue) }
    }

    @inline(__always)
    func setZero() { coefficients.update(repeating: 0, count: Polynomial.degree) }

    /// self = self + other (mod q).
    @inline(__always)
    func add(_ other: Polynomial) {
        for i in 0..<Polynomial.degree { self[i] = Field.subtractQ(self[i] &+ other[i]) }
    }

    /// self = self - other (mod q).
    @inline(__always)
    func subtract(_ other: Polynomial) {
        for i in 0..<Polynomial.degree { self[i] = Field.subtractQ(self[i] &+ Field.q &- other[i]) }
    }
}

/// One allocation holding every polynomial and byte buffer an ML-KEM
/// operation needs; wiped and freed when the operation ends, since most of
/// it is secret (s, e, m, r, y, the re-encrypted ciphertext).
final class PolynomialScratch {
    private let storage: UnsafeMutablePointer<UInt16>
    private let count: Int
    /// Unreduced sums of NTT products, one polynomial wide.
    let accumulator: UnsafeMutablePointer<UInt32>
    private var next = 0

    init(polynomials: Int) {
        count = polynomials * Polynomial.degree
        storage = .allocate(capacity: count)
        storage.initialize(repeating: 0, count: count)
        accumulator = .allocate(capacity: Polynomial.degree)
        accumulator.initialize(repeating: 0, count: Polynomial.degree)
    }

    deinit {
        wipe(storage, count: count)
        wipe(accumulator, count: Polynomial.degree)
        storage.deallocate()
        accumulator.deallocate()
    }

    /// The next unused polynomial of the scratch area.
    func polynomial() -> Polynomial {
        precondition(next + Polynomial.degree <= count, "PolynomialScratch too small")
        defer { next += Polynomial.degree }
        return Polynomial(coefficients: storage + next)
    }

    /// The next `k` polynomials, as a vector.
    func vector(_ k: Int) -> [Polynomial] {
        var polynomials: [Polynomial] = []
        polynomials.reserveCapacity(k)
        for _ in 0..<k { polynomials.append(polynomial()) }
        return polynomials
    }
}
