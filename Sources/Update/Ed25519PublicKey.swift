import CCrypto

/// An Ed25519 public key (RFC 8032) held by libcrypto: the update key the
/// image carries (/etc/headunit/update-key.pub). Only verification lives on
/// the head unit; signing is the builder's (image/mkbundle, openssl).
public final class Ed25519PublicKey {
    public static let size = 32
    private let key: OpaquePointer
    public let raw: [UInt8]

    public init(raw: [UInt8]) throws(BundleError) {
        guard raw.count == Ed25519PublicKey.size,
              let key = EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, raw, raw.count) else {
            ERR_clear_error()
            throw .badPublicKey
        }
        self.key = key
        self.raw = raw
    }

    /// The key file's text: 64 hex digits, blanks and a newline around them allowed.
    public convenience init(hexFile bytes: [UInt8]) throws(BundleError) {
        let text = String(decoding: bytes.filter { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }, as: UTF8.self)
        guard let raw = Hex.decode(text) else { throw .badPublicKey }
        try self.init(raw: raw)
    }

    deinit { EVP_PKEY_free(key) }

    /// Pure Ed25519 over the whole message (one shot: Ed25519 hashes the
    /// message twice, so libcrypto takes no streamed input for it).
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == 64, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let ok = EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1
            && EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
        ERR_clear_error()
        return ok
    }
}
