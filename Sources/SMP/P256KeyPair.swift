import BluetoothCore
import CCrypto

/// A P-256 key pair for one LE Secure Connections pairing, held by OpenSSL.
/// A fresh pair is generated for every pairing, from the link's random
/// source (`generate(random:)`).
public final class P256KeyPair {
    private let key: OpaquePointer
    public let publicKey: P256PublicKey

    private init(key: OpaquePointer) throws(CryptoError) {
        var point = [UInt8](repeating: 0, count: 65)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(key, "pub", &point, 65, &length) == 1,
              length == 65, let publicKey = P256PublicKey(sec1Uncompressed: point) else {
            EVP_PKEY_free(key)
            throw CryptoError.openSSL("EVP_PKEY_get_octet_string_param(pub)")
        }
        self.key = key
        self.publicKey = publicKey
    }

    deinit { EVP_PKEY_free(key) }

    /// A fresh key pair whose private key is drawn from `random`: 32
    /// octets taken as a number, drawn again (rarely: about once in 2^32)
    /// until it lies in [1, n-1]. With a seeded source the same run makes
    /// the same key.
    public static func generate(random: RandomSource = .system) throws(CryptoError) -> P256KeyPair {
        for _ in 0..<16 {
            let scalar = try random.bytes(32)
            if isPrivateKey(scalar) { return try fromPrivateKey(bigEndian: scalar) }
        }
        throw .randomUnavailable
    }

    /// The order n of the P-256 group, most significant octet first.
    private static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// 0 < scalar < n (big-endian, 32 octets).
    static func isPrivateKey(_ scalar: [UInt8]) -> Bool {
        guard scalar.count == 32, scalar.contains(where: { $0 != 0 }) else { return false }
        for i in 0..<32 where scalar[i] != order[i] { return scalar[i] < order[i] }
        return false
    }

    /// A key pair from a known private key (32 octets, most significant
    /// first): the specification's sample keys and the debug key in tests.
    public static func fromPrivateKey(bigEndian privateKey: [UInt8]) throws(CryptoError) -> P256KeyPair {
        guard privateKey.count == 32 else { throw .badInputLength }
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else {
            throw CryptoError.openSSL("EC_GROUP_new_by_curve_name")
        }
        defer { EC_GROUP_free(group) }
        guard let scalar = BN_bin2bn(privateKey, 32, nil) else { throw CryptoError.openSSL("BN_bin2bn") }
        defer { BN_clear_free(scalar) }
        guard let point = EC_POINT_new(group) else { throw CryptoError.openSSL("EC_POINT_new") }
        defer { EC_POINT_free(point) }
        var encoded = [UInt8](repeating: 0, count: 65)
        guard EC_POINT_mul(group, point, scalar, nil, nil, nil) == 1,
              EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &encoded, 65, nil) == 65 else {
            throw CryptoError.openSSL("EC_POINT_mul")
        }
        let key = try P256KeyPair.importKey(point: encoded, privateScalar: scalar)
        return try P256KeyPair(key: key)
    }

    /// The DHKey of Vol 3 Part H 2.3.5.6: the X coordinate of the shared
    /// point, 32 octets in SMP order. Refuses a peer key that is not on the
    /// curve before OpenSSL ever multiplies with it.
    public func dhKey(with peer: P256PublicKey) throws(CryptoError) -> [UInt8] {
        guard peer.isOnCurve else { throw .publicKeyNotOnCurve }
        let peerKey = try P256KeyPair.importKey(point: peer.sec1Uncompressed, privateScalar: nil)
        defer { EVP_PKEY_free(peerKey) }

        guard let checkContext = EVP_PKEY_CTX_new_from_pkey(nil, peerKey, nil) else {
            throw CryptoError.openSSL("EVP_PKEY_CTX_new_from_pkey")
        }
        let valid = EVP_PKEY_public_check(checkContext) == 1
        EVP_PKEY_CTX_free(checkContext)
        guard valid else {
            ERR_clear_error()
            throw .publicKeyNotOnCurve
        }

        guard let ctx = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else {
            throw CryptoError.openSSL("EVP_PKEY_CTX_new_from_pkey")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        var secret = [UInt8](repeating: 0, count: 32)
        var length = 32
        guard EVP_PKEY_derive_init(ctx) == 1, EVP_PKEY_derive_set_peer(ctx, peerKey) == 1,
              EVP_PKEY_derive(ctx, &secret, &length) == 1, length == 32 else {
            throw CryptoError.openSSL("EVP_PKEY_derive")
        }
        return secret.reversed()
    }

    /// An EVP_PKEY on P-256 from an uncompressed point and, for a key pair,
    /// the private scalar. OSSL_PARAM_BLD keeps the pointers it is given
    /// until OSSL_PARAM_BLD_to_param, so the point's buffer is pinned around
    /// the whole build.
    private static func importKey(point: [UInt8], privateScalar: OpaquePointer?) throws(CryptoError) -> OpaquePointer {
        guard let builder = OSSL_PARAM_BLD_new() else { throw CryptoError.openSSL("OSSL_PARAM_BLD_new") }
        defer { OSSL_PARAM_BLD_free(builder) }
        let built: UnsafeMutablePointer<OSSL_PARAM>? = point.withUnsafeBufferPointer { buffer in
            guard OSSL_PARAM_BLD_push_utf8_string(builder, cString("group"), cString("prime256v1"), 0) == 1,
                  OSSL_PARAM_BLD_push_octet_string(builder, cString("pub"), buffer.baseAddress, buffer.count) == 1 else {
                return nil
            }
            if let scalar = privateScalar, OSSL_PARAM_BLD_push_BN(builder, cString("priv"), scalar) != 1 {
                return nil
            }
            return OSSL_PARAM_BLD_to_param(builder)
        }
        guard let params = built else { throw CryptoError.openSSL("OSSL_PARAM_BLD") }
        defer { OSSL_PARAM_free(params) }

        guard let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw CryptoError.openSSL("EVP_PKEY_CTX_new_from_name(EC)")
        }
        defer { EVP_PKEY_CTX_free(ctx) }
        let selection = privateScalar == nil ? nn_evp_pkey_public_key_selection() : nn_evp_pkey_keypair_selection()
        var key: OpaquePointer? = nil
        guard EVP_PKEY_fromdata_init(ctx) == 1, EVP_PKEY_fromdata(ctx, &key, selection, params) == 1,
              let imported = key else {
            throw CryptoError.openSSL("EVP_PKEY_fromdata")
        }
        return imported
    }
}

/// A C string with static lifetime: OSSL_PARAM_BLD keeps key and value
/// pointers past the call, longer than a Swift string argument's temporary
/// C string is guaranteed to live.
private func cString(_ text: StaticString) -> UnsafePointer<CChar> {
    UnsafeRawPointer(text.utf8Start).assumingMemoryBound(to: CChar.self)
}
