import HPKE

/// The receiver's real cryptography: X-Wing, the HPKE base-mode key schedule
/// and export, and AES-256-GCM from the `HPKE` module (docs/NOTIFBRIDGE.md,
/// "Cryptography"). Failures come back as nil or an empty blob, which the
/// receiver treats as a refused key or envelope.
public enum HPKECryptography: NotifBridgeCryptography {
    public static func exporterSecret(seed: [UInt8], publicKey: [UInt8], encapsulatedKey: [UInt8], info: [UInt8]) -> [UInt8]? {
        guard let key = try? XWingPrivateKey(seed: seed, publicKey: publicKey),
              let sharedSecret = try? key.decapsulate(encapsulatedKey) else { return nil }
        // The X-Wing shared secret is needed for the key schedule only.
        defer { wipeSecret(sharedSecret) }
        return HPKEExporter(sharedSecret: sharedSecret, info: info).exporterSecret
    }

    public static func export(exporterSecret: [UInt8], context: [UInt8]) -> [UInt8] {
        HPKEExporter(exporterSecret: exporterSecret).export(context: context, length: 32)
    }

    public static func open(key: [UInt8], sealed: [UInt8]) -> [UInt8]? {
        try? AES256GCM.open(key: key, sealed: sealed)
    }

    public static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8]) -> [UInt8] {
        (try? AES256GCM.seal(key: key, nonce: nonce, plaintext: plaintext)) ?? []
    }

    public static func sha256(_ bytes: [UInt8]) -> [UInt8] { HPKE.sha256(bytes) }

    public static func randomBytes(_ count: Int) -> [UInt8] { HPKE.randomBytes(count) }
}
