/// HKDF-SHA256 (RFC 5869), KDF 0x0001 of HPKE; GhostDrop's session keys too.
public enum HKDF {
    public static let hashCount = 32

    /// PRK = HMAC-SHA256(salt, ikm).
    public static func extract(salt: [UInt8], inputKeyingMaterial: [UInt8]) -> [UInt8] {
        hmacSHA256(key: salt, data: inputKeyingMaterial)
    }

    /// The first `length` bytes of T(1) ‖ T(2) ‖ …, T(i) = HMAC(PRK, T(i-1) ‖ info ‖ i).
    public static func expand(pseudorandomKey: [UInt8], info: [UInt8], length: Int) -> [UInt8] {
        precondition(length <= 255 * hashCount, "HKDF-Expand: length above 255 blocks")
        var output: [UInt8] = []
        output.reserveCapacity(length + hashCount)
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < length {
            var input = block + info
            input.append(counter)
            wipe(&block)
            block = hmacSHA256(key: pseudorandomKey, data: input)
            wipe(&input)
            output += block
            counter &+= 1
        }
        wipe(&block)
        let result = Array(output[0..<length])
        wipe(&output)
        return result
    }
}
