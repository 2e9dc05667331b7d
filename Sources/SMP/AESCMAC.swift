import CCrypto

/// AES-CMAC (RFC 4493), the core of every LE Secure Connections function.
extension SMPCrypto {
    /// AES-CMAC with a 128-bit key over `message`; key, message and tag most
    /// significant octet first, the way RFC 4493 and the function
    /// definitions of Vol 3 Part H 2.2.5 write them.
    public static func aesCMAC(key: [UInt8], message: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == 16 else { throw .badInputLength }
        var tag = [UInt8](repeating: 0, count: 16)
        var tagCount = 0
        // An empty message is valid CMAC input; give OpenSSL a real pointer anyway.
        let data = message.isEmpty ? [UInt8](repeating: 0, count: 1) : message
        let result = EVP_Q_mac(nil, "CMAC", nil, "AES-128-CBC", nil,
                               key, 16, data, message.count, &tag, 16, &tagCount)
        guard result != nil, tagCount == 16 else { throw CryptoError.openSSL("EVP_Q_mac(CMAC)") }
        return tag
    }
}
