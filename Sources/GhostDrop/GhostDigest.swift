import CCrypto

/// SHA-256 over a file that arrives in chunks (libcrypto's EVP digest).
public final class GhostDigest {
    private let context: OpaquePointer
    public private(set) var byteCount: Int64 = 0

    public init() {
        // Only an out-of-memory libcrypto fails these; nothing safe to go on with.
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("libcrypto SHA-256 init failed")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    public func update(_ bytes: [UInt8]) {
        let done = bytes.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) == 1 }
        guard done else { fatalError("libcrypto SHA-256 update failed") }
        byteCount += Int64(bytes.count)
    }

    /// Another digest that goes on from where this one stands (libcrypto's
    /// context copied): a transfer resumed continues from the bytes already
    /// hashed, without reading them again.
    public func copy() -> GhostDigest {
        let other = GhostDigest()
        guard EVP_MD_CTX_copy_ex(other.context, context) == 1 else { fatalError("libcrypto SHA-256 copy failed") }
        other.byteCount = byteCount
        return other
    }

    /// The digest of everything fed; the context starts over afterwards.
    public func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1, length == 32,
              EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { fatalError("libcrypto SHA-256 final failed") }
        byteCount = 0
        return digest
    }
}
