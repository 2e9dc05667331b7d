/// UTF-8 to Unicode scalars that never fails: every ill-formed sequence
/// (stray continuation bytes, truncated sequences, overlong forms, surrogates,
/// values past U+10FFFF) becomes one U+FFFD per maximal invalid subpart, the
/// Unicode-recommended practice, and decoding resumes at the next byte.
/// Notification text comes from the phone and may be cut mid-character.
public struct UTF8Decoder {
    public static let replacement: UInt32 = 0xFFFD

    /// Decodes the scalar starting at `i`; returns it and the byte count used
    /// (at least 1, so a caller's loop always advances).
    @inline(__always)
    public static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at i: Int) -> (scalar: UInt32, length: Int) {
        let n = bytes.count
        let b0 = UInt32(bytes[i])
        if b0 < 0x80 { return (b0, 1) }
        var need: Int
        var value: UInt32
        var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: need = 1; value = b0 & 0x1F
        case 0xE0: need = 2; value = b0 & 0x0F; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: need = 2; value = b0 & 0x0F
        case 0xED: need = 2; value = b0 & 0x0F; upper = 0x9F
        case 0xF0: need = 3; value = b0 & 0x07; lower = 0x90
        case 0xF1...0xF3: need = 3; value = b0 & 0x07
        case 0xF4: need = 3; value = b0 & 0x07; upper = 0x8F
        default: return (replacement, 1)
        }
        var j = i + 1
        while need > 0 {
            guard j < n else { return (replacement, j - i) }
            let b = bytes[j]
            guard b >= lower && b <= upper else { return (replacement, j - i) }
            value = value << 6 | UInt32(b & 0x3F)
            lower = 0x80; upper = 0xBF
            need -= 1
            j += 1
        }
        return (value, j - i)
    }

    /// All scalars of `bytes`.
    public static func scalars(_ bytes: [UInt8]) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(bytes.count)
        bytes.withUnsafeBufferPointer { buf in
            var i = 0
            while i < buf.count {
                let (s, len) = decode(buf, at: i)
                out.append(s)
                i += len
            }
        }
        return out
    }
}
