/// The LE legacy pairing functions c1 and s1 (Vol 3 Part H 2.2.3-2.2.4),
/// in SMP order like the rest of the toolbox. Used only when the phone has
/// no Secure Connections and the policy allows legacy pairing.
extension SMPCrypto {
    /// c1(k, r, preq, pres, iat, rat, ia, ra): the legacy confirm value.
    /// preq/pres are the 7-octet Pairing Request/Response PDUs as sent,
    /// iat/rat the address types (0 public, 1 random), ia/ra the 6 address
    /// octets.
    public static func c1(k: [UInt8], r: [UInt8], preq: [UInt8], pres: [UInt8],
                          iat: UInt8, rat: UInt8, ia: [UInt8], ra: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard k.count == 16, r.count == 16, preq.count == 7, pres.count == 7, ia.count == 6, ra.count == 6 else {
            throw .badInputLength
        }
        let p1 = [iat & 0x01, rat & 0x01] + preq + pres
        let p2 = ra + ia + [0, 0, 0, 0]
        let first = try e(key: k, plaintext: xor(r, p1))
        return try e(key: k, plaintext: xor(first, p2))
    }

    /// s1(k, r1, r2): the legacy STK from the least significant halves of
    /// the responder's (r1) and initiator's (r2) random values.
    public static func s1(k: [UInt8], r1: [UInt8], r2: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard k.count == 16, r1.count == 16, r2.count == 16 else { throw .badInputLength }
        return try e(key: k, plaintext: Array(r2[0..<8]) + Array(r1[0..<8]))
    }

    private static func xor(_ a: [UInt8], _ b: [UInt8]) -> [UInt8] {
        var out = a
        for i in 0..<min(a.count, b.count) { out[i] ^= b[i] }
        return out
    }
}
