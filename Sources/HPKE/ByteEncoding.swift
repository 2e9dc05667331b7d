/// ByteEncode/ByteDecode and Compress/Decompress of FIPS 203 §4.2.1
/// (Algorithms 5 and 6, equations 4.7 and 4.8) for the sizes ML-KEM-768
/// uses: 12 bits (keys), 10 bits (u), 4 bits (v), 1 bit (the message).
/// Rounding is done with multiplications, never a divide or a branch.
enum ByteEncoding {
    /// 384 bytes: two 12-bit coefficients per three bytes.
    static func encode12(_ f: Polynomial, into bytes: UnsafeMutablePointer<UInt8>) {
        for i in 0..<128 {
            let a = f[2 * i], b = f[2 * i + 1]
            bytes[3 * i] = UInt8(truncatingIfNeeded: a)
            bytes[3 * i + 1] = UInt8(truncatingIfNeeded: (a >> 8) | (b << 4))
            bytes[3 * i + 2] = UInt8(truncatingIfNeeded: b >> 4)
        }
    }

    /// The inverse of encode12, each value reduced mod q as ByteDecode₁₂ does.
    static func decode12(_ bytes: UnsafePointer<UInt8>, into f: Polynomial) {
        for i in 0..<128 {
            let b0 = UInt32(bytes[3 * i]), b1 = UInt32(bytes[3 * i + 1]), b2 = UInt32(bytes[3 * i + 2])
            f[2 * i] = Field.subtractQ(b0 | ((b1 & 0x0F) << 8))
            f[2 * i + 1] = Field.subtractQ((b1 >> 4) | (b2 << 4))
        }
    }

    /// Compress_d(x) = ⌈(2^d / q) · x⌋ mod 2^d.
    @inline(__always)
    static func compress(_ x: UInt32, bits: UInt32) -> UInt32 {
        // Rounding (2^d x)/q half up is flooring (2^d x + (q - 1)/2)/q, as q is odd.
        Field.quotient((x << bits) &+ (Field.q - 1) / 2) & ((1 << bits) - 1)
    }

    /// Decompress_d(y) = ⌈(q / 2^d) · y⌋.
    @inline(__always)
    static func decompress(_ y: UInt32, bits: UInt32) -> UInt32 {
        (y &* Field.q &+ (1 << (bits - 1))) >> bits
    }

    /// ByteEncode₁₀(Compress₁₀(f)): 320 bytes, four coefficients per five bytes.
    static func compressEncode10(_ f: Polynomial, into bytes: UnsafeMutablePointer<UInt8>) {
        for i in 0..<64 {
            let c0 = compress(f[4 * i], bits: 10), c1 = compress(f[4 * i + 1], bits: 10)
            let c2 = compress(f[4 * i + 2], bits: 10), c3 = compress(f[4 * i + 3], bits: 10)
            let out = bytes + 5 * i
            out[0] = UInt8(truncatingIfNeeded: c0)
            out[1] = UInt8(truncatingIfNeeded: (c0 >> 8) | (c1 << 2))
            out[2] = UInt8(truncatingIfNeeded: (c1 >> 6) | (c2 << 4))
            out[3] = UInt8(truncatingIfNeeded: (c2 >> 4) | (c3 << 6))
            out[4] = UInt8(truncatingIfNeeded: c3 >> 2)
        }
    }

    /// Decompress₁₀(ByteDecode₁₀(bytes)).
    static func decodeDecompress10(_ bytes: UnsafePointer<UInt8>, into f: Polynomial) {
        for i in 0..<64 {
            let b = bytes + 5 * i
            let b0 = UInt32(b[0]), b1 = UInt32(b[1]), b2 = UInt32(b[2]), b3 = UInt32(b[3]), b4 = UInt32(b[4])
            f[4 * i] = decompress(b0 | ((b1 & 0x03) << 8), bits: 10)
            f[4 * i + 1] = decompress((b1 >> 2) | ((b2 & 0x0F) << 6), bits: 10)
            f[4 * i + 2] = decompress((b2 >> 4) | ((b3 & 0x3F) << 4), bits: 10)
            f[4 * i + 3] = decompress((b3 >> 6) | (b4 << 2), bits: 10)
        }
    }

    /// ByteEncode₄(Compress₄(f)): 128 bytes, two coefficients per byte.
    static func compressEncode4(_ f: Polynomial, into bytes: UnsafeMutablePointer<UInt8>) {
        for i in 0..<128 {
            bytes[i] = UInt8(truncatingIfNeeded: compress(f[2 * i], bits: 4) | (compress(f[2 * i + 1], bits: 4) << 4))
        }
    }

    /// Decompress₄(ByteDecode₄(bytes)).
    static func decodeDecompress4(_ bytes: UnsafePointer<UInt8>, into f: Polynomial) {
        for i in 0..<128 {
            let b = UInt32(bytes[i])
            f[2 * i] = decompress(b & 0x0F, bits: 4)
            f[2 * i + 1] = decompress(b >> 4, bits: 4)
        }
    }

    /// ByteEncode₁(Compress₁(f)): the 32-byte message, one bit per coefficient.
    static func compressEncode1(_ f: Polynomial, into bytes: UnsafeMutablePointer<UInt8>) {
        for i in 0..<32 {
            var byte: UInt32 = 0
            for bit in 0..<8 { byte |= compress(f[8 * i + bit], bits: 1) << UInt32(bit) }
            bytes[i] = UInt8(truncatingIfNeeded: byte)
        }
    }

    /// Decompress₁(ByteDecode₁(bytes)): each bit becomes 0 or ⌈q/2⌋ = 1665,
    /// through a mask rather than a branch on the (secret) bit.
    static func decodeDecompress1(_ bytes: UnsafePointer<UInt8>, into f: Polynomial) {
        for i in 0..<32 {
            let byte = UInt32(bytes[i])
            for bit in 0..<8 {
                let mask = 0 &- ((byte >> UInt32(bit)) & 1)
                f[8 * i + bit] = mask & ((Field.q + 1) / 2)
            }
        }
    }
}
