/// Comparisons and selections whose instructions and memory accesses do not
/// depend on the values: decapsulation runs them on secret data.
enum ConstantTime {
    /// All ones when the two ranges are byte-for-byte equal, zero otherwise;
    /// reads every byte of both.
    @inline(__always)
    static func equalMask(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, count: Int) -> UInt8 {
        var difference: UInt8 = 0
        for i in 0..<count { difference |= a[i] ^ b[i] }
        // 0 -> 0xFF, anything else -> 0x00, with no branch on it.
        let wide = UInt32(difference)
        return UInt8(truncatingIfNeeded: (wide &- 1) >> 8)
    }

    /// `destination = mask ? source : destination`, byte by byte, mask all ones or zero.
    @inline(__always)
    static func select(_ destination: UnsafeMutablePointer<UInt8>, from source: UnsafePointer<UInt8>, count: Int, mask: UInt8) {
        for i in 0..<count { destination[i] ^= mask & (destination[i] ^ source[i]) }
    }
}
