import CCrypto

/// AES-128 on one block, the Security Manager's function e (Vol 3 Part H 2.2.1).
extension SMPCrypto {
    /// Standard AES-128 of one 16-octet block, key and data most significant
    /// octet first as FIPS-197 prints them.
    static func aes128(key: [UInt8], block: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == 16, block.count == 16 else { throw .badInputLength }
        guard let ctx = EVP_CIPHER_CTX_new() else { throw CryptoError.openSSL("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(ctx) }
        guard EVP_EncryptInit_ex(ctx, EVP_aes_128_ecb(), nil, key, nil) == 1 else {
            throw CryptoError.openSSL("EVP_EncryptInit_ex")
        }
        // One exact block: padding would add a second block of output.
        _ = EVP_CIPHER_CTX_set_padding(ctx, 0)
        var out = [UInt8](repeating: 0, count: 32)
        var written: Int32 = 0
        guard EVP_EncryptUpdate(ctx, &out, &written, block, 16) == 1, written == 16 else {
            throw CryptoError.openSSL("EVP_EncryptUpdate")
        }
        var tail = [UInt8](repeating: 0, count: 16)
        var tailCount: Int32 = 0
        guard EVP_EncryptFinal_ex(ctx, &tail, &tailCount) == 1, tailCount == 0 else {
            throw CryptoError.openSSL("EVP_EncryptFinal_ex")
        }
        return Array(out[0..<16])
    }

    /// e(key, plaintext) with key, plaintext and result in SMP order (least
    /// significant octet first, as the PDUs carry them).
    public static func e(key: [UInt8], plaintext: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == 16, plaintext.count == 16 else { throw .badInputLength }
        return try aes128(key: key.reversed(), block: plaintext.reversed()).reversed()
    }
}
