import CCrypto

/// SHA-256 of `bytes` (NotifBridge dedupes envelopes by the ciphertext's hash).
public func sha256(_ bytes: [UInt8]) -> [UInt8] {
    var digest = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    let done = bytes.withUnsafeBytes { input in
        EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil) == 1
    }
    // Only an out-of-memory libcrypto fails a digest; there is no safe value to go on with.
    guard done, length == 32 else { fatalError("libcrypto SHA-256 failed") }
    return digest
}

/// HMAC-SHA256(key, data), the PRF under HKDF (RFC 5869).
func hmacSHA256(key: [UInt8], data: [UInt8]) -> [UInt8] {
    // HMAC pads its key with zeros to the block size, so an empty key (HPKE's
    // empty salt) is the same key as 32 zero bytes, which needs no null pointer.
    let key = key.isEmpty ? [UInt8](repeating: 0, count: 32) : key
    var mac = [UInt8](repeating: 0, count: 32)
    var length: UInt32 = 0
    let done = data.withUnsafeBufferPointer { data in
        HMAC(EVP_sha256(), key, Int32(key.count), data.baseAddress, data.count, &mac, &length) != nil
    }
    guard done, length == 32 else { fatalError("libcrypto HMAC-SHA256 failed") }
    return mac
}
