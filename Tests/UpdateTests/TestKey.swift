import CCrypto
import Foundation
import Update

/// The repository's test update key (image/keys/test-update-key.pem), which
/// image/build signs with unless given another, and a signer for tests.
enum TestKey {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let privateKeyPath = repository.appendingPathComponent("image/keys/test-update-key.pem").path
    static let publicKeyPath = repository.appendingPathComponent("image/keys/test-update-key.pub").path

    /// The 32-byte seed: a PKCS#8 Ed25519 key is 16 bytes of DER and the seed.
    static func seed(pemPath: String = privateKeyPath) -> [UInt8] {
        let pem = try! String(contentsOfFile: pemPath, encoding: .utf8)
        let base64 = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        let der = [UInt8](Data(base64Encoded: base64)!)
        precondition(der.count == 48, "not a PKCS#8 Ed25519 key")
        return Array(der.suffix(32))
    }

    static func publicKey(fromSeed seed: [UInt8]) -> [UInt8] {
        let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed, 32)!
        defer { EVP_PKEY_free(key) }
        var raw = [UInt8](repeating: 0, count: 32)
        var length = 32
        precondition(EVP_PKEY_get_raw_public_key(key, &raw, &length) == 1)
        return raw
    }

    static func sign(_ message: [UInt8], seed: [UInt8]) -> [UInt8] {
        let key = EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, seed, 32)!
        defer { EVP_PKEY_free(key) }
        let context = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(context) }
        var signature = [UInt8](repeating: 0, count: 64)
        var length = 64
        precondition(EVP_DigestSignInit(context, nil, nil, nil, key) == 1)
        precondition(EVP_DigestSign(context, &signature, &length, message, message.count) == 1 && length == 64)
        return signature
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        precondition(EVP_Digest(bytes, bytes.count, &digest, &length, EVP_sha256(), nil) == 1)
        return digest
    }
}

/// A bundle written as the format says, independently of image/mkbundle.
struct TestBundle {
    var compatible = "qemu-virt"
    var version = "2.0"
    var images: [(String, [UInt8])] = [("root", TestBundle.pattern(count: 70_000, salt: 1))]
    var seed = TestKey.seed()

    static func pattern(count: Int, salt: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(salt) &* 7 &+ $0 >> 8) }
    }

    var manifest: BundleManifest {
        BundleManifest(compatible: compatible, version: version,
                       images: images.map { .init(name: $0.0, size: UInt64($0.1.count), sha256: TestKey.sha256($0.1)) })
    }

    /// Header and manifest text (what is signed), for tests that alter it.
    func signedPart(manifestText: String? = nil) -> [UInt8] {
        let text = Array((manifestText ?? manifest.text).utf8)
        return BundleHeader(manifestLength: text.count).bytes + text
    }

    func bytes(manifestText: String? = nil) -> [UInt8] {
        let signed = signedPart(manifestText: manifestText)
        return signed + TestKey.sign(signed, seed: seed) + images.flatMap { $0.1 }
    }
}
