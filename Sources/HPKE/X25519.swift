import CCrypto

/// X25519 (RFC 7748) through libcrypto: the classical half of X-Wing.
final class X25519PrivateKey {
    static let keyCount = 32
    private let key: OpaquePointer
    /// X25519(sk, 9).
    let publicKey: [UInt8]

    /// The key with the 32-byte scalar at `scalar` (clamped by libcrypto as RFC 7748 says).
    init(scalar: UnsafePointer<UInt8>) throws(HPKEError) {
        guard let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, nil, scalar, X25519PrivateKey.keyCount) else {
            ERR_clear_error()
            throw .libcrypto
        }
        var publicKey = [UInt8](repeating: 0, count: X25519PrivateKey.keyCount)
        var length = X25519PrivateKey.keyCount
        guard EVP_PKEY_get_raw_public_key(key, &publicKey, &length) == 1, length == X25519PrivateKey.keyCount else {
            ERR_clear_error()
            EVP_PKEY_free(key)
            throw .libcrypto
        }
        self.key = key
        self.publicKey = publicKey
    }

    /// libcrypto keeps the scalar in memory it cleanses when freeing the key.
    deinit { EVP_PKEY_free(key) }

    /// X25519(sk, peer) into `output` (32 bytes). libcrypto refuses a peer
    /// value of small order (the result would be all zeros): that is
    /// reported as `authenticationFailed`, as no honest sender produces one.
    func sharedSecret(with peer: UnsafePointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) throws(HPKEError) {
        guard let peerKey = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, nil, peer, X25519PrivateKey.keyCount) else {
            ERR_clear_error()
            throw .libcrypto
        }
        defer { EVP_PKEY_free(peerKey) }
        guard let context = EVP_PKEY_CTX_new(key, nil) else {
            ERR_clear_error()
            throw .libcrypto
        }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_derive_init(context) == 1, EVP_PKEY_derive_set_peer(context, peerKey) == 1 else {
            ERR_clear_error()
            throw .libcrypto
        }
        var length = X25519PrivateKey.keyCount
        guard EVP_PKEY_derive(context, output, &length) == 1, length == X25519PrivateKey.keyCount else {
            ERR_clear_error()
            output.update(repeating: 0, count: X25519PrivateKey.keyCount)
            throw .authenticationFailed
        }
    }
}
