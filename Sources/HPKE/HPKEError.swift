/// Why a NotifBridge key or message was refused. Callers log the case and
/// drop the input; none of them says anything about secret values.
public enum HPKEError: Error, Equatable {
    /// A key, seed, encapsulated key or sealed blob of the wrong size.
    case invalidLength
    /// The public key derived from a seed is not the one the phone sent with it.
    case publicKeyMismatch
    /// AES-GCM refused the tag: wrong key, or the blob was altered.
    case authenticationFailed
    /// libcrypto failed an operation it should not fail (out of memory, no provider).
    case libcrypto
}
