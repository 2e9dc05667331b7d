import CCrypto

/// `count` bytes from libcrypto's CSPRNG (AES-GCM nonces of reverse messages).
public func randomBytes(_ count: Int) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    guard count > 0 else { return bytes }
    // A nonce or key from a failed generator would repeat: stopping is the only safe answer.
    guard RAND_bytes(&bytes, Int32(count)) == 1 else { fatalError("libcrypto RAND_bytes failed") }
    return bytes
}
