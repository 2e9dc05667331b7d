import HPKE

/// AES-256-GCM in one direction pair, as SessionCryptoContext.swift derives
/// it: key = HKDF-SHA256(encryption key material, salt "ghostdrop-directional",
/// info "sender"/"receiver"); nonce = first 4 bytes of
/// SHA-256("ghostdrop-sender"/"-receiver") ‖ sequence (UInt64 big-endian);
/// additional data = the sequence (UInt64 big-endian). `combined` is
/// nonce ‖ ciphertext ‖ tag.
///
/// Sealed control frames and data chunks count their sequences apart, under
/// the same key and nonce prefix: the sender's control frame k and data chunk
/// k share a nonce (the reference does so). Nothing here may be trusted for
/// more than the link already gives; an update's own signature is what counts.
public struct GhostCipher {
    public enum Role { case sender, receiver }

    let sealKey: [UInt8]
    let openKey: [UInt8]
    let sealPrefix: [UInt8]
    let openPrefix: [UInt8]

    public init(secrets: GhostSessionSecrets, role: Role) {
        let salt = Array("ghostdrop-directional".utf8)
        let prk = HKDF.extract(salt: salt, inputKeyingMaterial: secrets.encryptionKeyMaterial)
        let senderKey = HKDF.expand(pseudorandomKey: prk, info: Array("sender".utf8), length: 32)
        let receiverKey = HKDF.expand(pseudorandomKey: prk, info: Array("receiver".utf8), length: 32)
        let senderPrefix = Array(sha256(Array("ghostdrop-sender".utf8))[0..<4])
        let receiverPrefix = Array(sha256(Array("ghostdrop-receiver".utf8))[0..<4])
        switch role {
        case .sender:
            (sealKey, openKey, sealPrefix, openPrefix) = (senderKey, receiverKey, senderPrefix, receiverPrefix)
        case .receiver:
            (sealKey, openKey, sealPrefix, openPrefix) = (receiverKey, senderKey, receiverPrefix, senderPrefix)
        }
    }

    static func bigEndian(_ sequence: UInt64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: sequence >> (56 - 8 * UInt64($0))) }
    }

    public func seal(_ plaintext: [UInt8], sequence: UInt64) -> [UInt8] {
        let s = GhostCipher.bigEndian(sequence)
        // Key and nonce lengths are fixed here, the only ways seal fails.
        return (try? AES256GCM.seal(key: sealKey, nonce: sealPrefix + s, plaintext: plaintext, additionalData: s)) ?? []
    }

    /// The plaintext, after checking the nonce is the one the sequence gives.
    public func open(_ combined: [UInt8], sequence: UInt64) throws(GhostCryptoError) -> [UInt8] {
        let s = GhostCipher.bigEndian(sequence)
        guard combined.count >= AES256GCM.nonceCount + AES256GCM.tagCount else { throw .authenticationFailed }
        guard combined[0..<12].elementsEqual(openPrefix + s) else { throw .unexpectedNonce }
        do throws(HPKEError) {
            return try AES256GCM.open(key: openKey, sealed: combined, additionalData: s)
        } catch {
            throw .authenticationFailed
        }
    }
}
