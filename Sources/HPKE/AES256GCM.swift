import CCrypto

/// AES-256-GCM over NotifBridge blobs: 12-byte nonce ‖ ciphertext ‖ 16-byte
/// tag, no additional data (AEAD 0x0002 of RFC 9180, used directly with
/// exported keys). GhostDrop seals the same layout (CryptoKit's `combined`)
/// with its sequence number as additional data.
public enum AES256GCM {
    public static let keyCount = 32
    public static let nonceCount = 12
    public static let tagCount = 16

    /// The plaintext of a sealed blob, or `authenticationFailed` when the
    /// tag does not match (nothing of the plaintext is returned then).
    public static func open(key: [UInt8], sealed: [UInt8], additionalData: [UInt8] = []) throws(HPKEError) -> [UInt8] {
        guard key.count == keyCount, sealed.count >= nonceCount + tagCount else { throw .invalidLength }
        let textCount = sealed.count - nonceCount - tagCount
        var plaintext = [UInt8](repeating: 0, count: textCount + 16)
        guard let context = EVP_CIPHER_CTX_new() else { throw .libcrypto }
        defer { EVP_CIPHER_CTX_free(context) }
        let result: Result<Void, HPKEError> = sealed.withUnsafeBufferPointer { sealed in
            let nonce = sealed.baseAddress!
            let text = nonce + nonceCount
            let tag = UnsafeMutableRawPointer(mutating: text + textCount)
            guard EVP_DecryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1 else { return .failure(.libcrypto) }
            var written: Int32 = 0
            if !additionalData.isEmpty {
                guard EVP_DecryptUpdate(context, nil, &written, additionalData, Int32(additionalData.count)) == 1 else { return .failure(.libcrypto) }
                written = 0
            }
            if textCount > 0 {
                guard EVP_DecryptUpdate(context, &plaintext, &written, text, Int32(textCount)) == 1 else { return .failure(.libcrypto) }
            }
            guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_SET_TAG, Int32(tagCount), tag) == 1 else { return .failure(.libcrypto) }
            var tail: Int32 = 0
            let tailStart = Int(written)
            let verified = plaintext.withUnsafeMutableBufferPointer { buffer in
                EVP_DecryptFinal_ex(context, buffer.baseAddress! + tailStart, &tail) == 1
            }
            guard verified else { return .failure(.authenticationFailed) }
            return Int(written + tail) == textCount ? .success(()) : .failure(.libcrypto)
        }
        if case .failure(let error) = result {
            ERR_clear_error()
            wipe(&plaintext)
            throw error
        }
        plaintext.removeLast(16)
        return plaintext
    }

    /// nonce ‖ AES-256-GCM(key, nonce, plaintext) ‖ tag. The nonce must never
    /// repeat under one key: reverse messages take a fresh `randomBytes(12)`.
    public static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], additionalData: [UInt8] = []) throws(HPKEError) -> [UInt8] {
        guard key.count == keyCount, nonce.count == nonceCount else { throw .invalidLength }
        var sealed = nonce + [UInt8](repeating: 0, count: plaintext.count + 16 + tagCount)
        guard let context = EVP_CIPHER_CTX_new() else { throw .libcrypto }
        defer { EVP_CIPHER_CTX_free(context) }
        let done = sealed.withUnsafeMutableBufferPointer { sealed in
            let text = sealed.baseAddress! + nonceCount
            guard EVP_EncryptInit_ex(context, EVP_aes_256_gcm(), nil, key, nonce) == 1 else { return false }
            var written: Int32 = 0
            if !additionalData.isEmpty {
                guard EVP_EncryptUpdate(context, nil, &written, additionalData, Int32(additionalData.count)) == 1 else { return false }
                written = 0
            }
            if !plaintext.isEmpty {
                guard EVP_EncryptUpdate(context, text, &written, plaintext, Int32(plaintext.count)) == 1 else { return false }
            }
            var tail: Int32 = 0
            guard EVP_EncryptFinal_ex(context, text + Int(written), &tail) == 1, Int(written + tail) == plaintext.count else { return false }
            return EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_GCM_GET_TAG, Int32(tagCount), text + plaintext.count) == 1
        }
        guard done else {
            ERR_clear_error()
            throw .libcrypto
        }
        sealed.removeLast(16)
        return sealed
    }
}
