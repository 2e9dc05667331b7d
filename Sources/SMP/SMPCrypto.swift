import CCrypto

/// The Security Manager's cryptographic toolbox (Vol 3 Part H 2.2).
///
/// Byte order: the specification prints values most significant octet first,
/// while SMP PDUs carry them least significant octet first. Every public
/// function here takes and returns SMP order (as received, as sent), and
/// reverses internally where AES and CMAC want the printed order. Test
/// vectors copied from the specification are therefore reversed first.
public enum SMPCrypto {}

/// Compares secrets (confirm values, check values) in constant time
/// (OpenSSL's CRYPTO_memcmp), so the time taken does not tell how many
/// leading octets matched.
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    guard !a.isEmpty else { return true }
    return CRYPTO_memcmp(a, b, a.count) == 0
}
