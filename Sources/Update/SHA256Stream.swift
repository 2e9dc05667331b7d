import CCrypto

/// SHA-256 fed in pieces (an image is megabytes and arrives in chunks).
final class SHA256Stream {
    private let context: OpaquePointer

    init() {
        // Only an out-of-memory libcrypto fails here; there is nothing safe to go on with.
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("libcrypto SHA-256 failed")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    func update(_ bytes: ArraySlice<UInt8>) {
        let done = bytes.withUnsafeBufferPointer { EVP_DigestUpdate(context, $0.baseAddress, $0.count) == 1 }
        guard done else { fatalError("libcrypto SHA-256 failed") }
    }

    func finish() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1, length == 32 else { fatalError("libcrypto SHA-256 failed") }
        return digest
    }
}
