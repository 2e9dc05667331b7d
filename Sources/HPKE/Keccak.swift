import CCrypto

/// SHA3-256, SHA3-512, SHAKE128 and SHAKE256 through libcrypto (FIPS 202),
/// fetched once per operation and run on one reused context.
///
/// A libcrypto failure does not unwind every caller: it is remembered in
/// `failed`, the output is left zero, and the operation that owns this
/// object checks the flag once at the end and throws `HPKEError.libcrypto`.
final class Keccak {
    enum Function { case sha3_256, sha3_512, shake128, shake256 }

    private let context: OpaquePointer?
    private let sha3_256: OpaquePointer?
    private let sha3_512: OpaquePointer?
    private let shake128: OpaquePointer?
    private let shake256: OpaquePointer?
    private var running = Function.sha3_256
    private(set) var failed = false

    init() {
        context = EVP_MD_CTX_new()
        sha3_256 = EVP_MD_fetch(nil, "SHA3-256", nil)
        sha3_512 = EVP_MD_fetch(nil, "SHA3-512", nil)
        shake128 = EVP_MD_fetch(nil, "SHAKE128", nil)
        shake256 = EVP_MD_fetch(nil, "SHAKE256", nil)
        failed = context == nil || sha3_256 == nil || sha3_512 == nil || shake128 == nil || shake256 == nil
    }

    deinit {
        EVP_MD_CTX_free(context)
        EVP_MD_free(sha3_256)
        EVP_MD_free(sha3_512)
        EVP_MD_free(shake128)
        EVP_MD_free(shake256)
    }

    func start(_ function: Function) {
        running = function
        let md: OpaquePointer?
        switch function {
        case .sha3_256: md = sha3_256
        case .sha3_512: md = sha3_512
        case .shake128: md = shake128
        case .shake256: md = shake256
        }
        guard !failed, EVP_DigestInit_ex(context, md, nil) == 1 else { return fail() }
    }

    func absorb(_ bytes: UnsafeRawPointer, count: Int) {
        guard !failed, count > 0 else { return }
        guard EVP_DigestUpdate(context, bytes, count) == 1 else { return fail() }
    }

    func absorb(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { buffer in
            if let base = buffer.baseAddress { absorb(base, count: buffer.count) }
        }
    }

    /// Writes the digest (32 or 64 bytes for SHA3) or the first `count`
    /// bytes of the XOF stream (SHAKE).
    func finish(into output: UnsafeMutablePointer<UInt8>, count: Int) {
        guard !failed else {
            output.update(repeating: 0, count: count)
            return
        }
        switch running {
        case .sha3_256, .sha3_512:
            var length: UInt32 = 0
            guard EVP_DigestFinal_ex(context, output, &length) == 1, Int(length) == count else { return fail() }
        case .shake128, .shake256:
            guard EVP_DigestFinalXOF(context, output, count) == 1 else { return fail() }
        }
    }

    /// The whole hash of `bytes` in one call.
    func hash(_ function: Function, _ bytes: UnsafeRawPointer, count: Int, into output: UnsafeMutablePointer<UInt8>, outputCount: Int) {
        start(function)
        absorb(bytes, count: count)
        finish(into: output, count: outputCount)
    }

    private func fail() {
        ERR_clear_error()
        failed = true
    }
}
