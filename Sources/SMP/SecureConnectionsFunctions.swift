/// The LE Secure Connections functions of Vol 3 Part H 2.2.6-2.2.11.
/// All arguments and results are in SMP order (least significant octet
/// first); see `SMPCrypto` for the convention.
extension SMPCrypto {
    /// f4(U, V, X, Z): the confirm value. U and V are public key X
    /// coordinates (32 octets), X a nonce (16), Z one octet.
    public static func f4(u: [UInt8], v: [UInt8], x: [UInt8], z: UInt8) throws(CryptoError) -> [UInt8] {
        guard u.count == 32, v.count == 32, x.count == 16 else { throw .badInputLength }
        let message = u.reversed() + v.reversed() + [z]
        return try aesCMAC(key: x.reversed(), message: message).reversed()
    }

    /// f5(W, N1, N2, A1, A2): the MacKey and the LTK from the DHKey W (32),
    /// the nonces (16 each) and the two addresses (7 each: the 6 address
    /// octets then the address type octet, see `SMPAddress`).
    public static func f5(w: [UInt8], n1: [UInt8], n2: [UInt8], a1: [UInt8], a2: [UInt8])
        throws(CryptoError) -> (macKey: [UInt8], ltk: [UInt8])
    {
        guard w.count == 32, n1.count == 16, n2.count == 16, a1.count == 7, a2.count == 7 else {
            throw .badInputLength
        }
        let salt: [UInt8] = [0x6C, 0x88, 0x83, 0x91, 0xAA, 0xF5, 0xA5, 0x38,
                             0x60, 0x37, 0x0B, 0xDB, 0x5A, 0x60, 0x83, 0xBE]
        let t = try aesCMAC(key: salt, message: w.reversed())
        let keyID: [UInt8] = [0x62, 0x74, 0x6C, 0x65]  // "btle"
        let body = keyID + n1.reversed() + n2.reversed() + a1.reversed() + a2.reversed() + [0x01, 0x00]
        let macKey = try aesCMAC(key: t, message: [0x00] + body)
        let ltk = try aesCMAC(key: t, message: [0x01] + body)
        return (macKey.reversed(), ltk.reversed())
    }

    /// f6(W, N1, N2, R, IOcap, A1, A2): the DHKey check value. W is the
    /// MacKey, R the passkey or OOB value (16), IOcap the three octets
    /// IO capability, OOB flag, AuthReq (SMP order).
    public static func f6(w: [UInt8], n1: [UInt8], n2: [UInt8], r: [UInt8], ioCap: [UInt8],
                          a1: [UInt8], a2: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard w.count == 16, n1.count == 16, n2.count == 16, r.count == 16, ioCap.count == 3,
              a1.count == 7, a2.count == 7 else { throw .badInputLength }
        let message = n1.reversed() + n2.reversed() + r.reversed() + ioCap.reversed()
            + a1.reversed() + a2.reversed()
        return try aesCMAC(key: w.reversed(), message: message).reversed()
    }

    /// g2(U, V, X, Y): the 32-bit numeric comparison value; the six digits
    /// shown are this modulo 1 000 000.
    public static func g2(u: [UInt8], v: [UInt8], x: [UInt8], y: [UInt8]) throws(CryptoError) -> UInt32 {
        guard u.count == 32, v.count == 32, x.count == 16, y.count == 16 else { throw .badInputLength }
        let tag = try aesCMAC(key: x.reversed(), message: u.reversed() + v.reversed() + y.reversed())
        var value: UInt32 = 0
        for octet in tag[12..<16] { value = value << 8 | UInt32(octet) }
        return value
    }

    /// h6(W, keyID): key conversion. keyID is the four ASCII octets as
    /// printed, e.g. 0x6C656272 for "lebr".
    public static func h6(w: [UInt8], keyID: UInt32) throws(CryptoError) -> [UInt8] {
        guard w.count == 16 else { throw .badInputLength }
        let id: [UInt8] = [UInt8(truncatingIfNeeded: keyID >> 24), UInt8(truncatingIfNeeded: keyID >> 16),
                           UInt8(truncatingIfNeeded: keyID >> 8), UInt8(truncatingIfNeeded: keyID)]
        return try aesCMAC(key: w.reversed(), message: id).reversed()
    }

    /// h7(SALT, W): key conversion with a salt (both 16 octets).
    public static func h7(salt: [UInt8], w: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard salt.count == 16, w.count == 16 else { throw .badInputLength }
        return try aesCMAC(key: salt.reversed(), message: w.reversed()).reversed()
    }
}
