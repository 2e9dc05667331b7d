/// An HPKE ciphersuite (RFC 9180 §7) whose KDF is HKDF-SHA256: its
/// identifiers go into every label, its AEAD sizes into the key schedule.
/// NotifBridge uses one suite; others exist to replay RFC 9180's vectors.
struct HPKESuite {
    let kem: UInt16
    let kdf: UInt16
    let aead: UInt16
    /// Nk and Nn of the AEAD.
    let keyCount: Int
    let nonceCount: Int

    /// X-Wing (0x647A), HKDF-SHA256 (0x0001), AES-256-GCM (0x0002).
    static let notifBridge = HPKESuite(kem: 0x647A, kdf: 0x0001, aead: 0x0002, keyCount: 32, nonceCount: 12)

    /// suite_id = "HPKE" ‖ I2OSP(kem_id, 2) ‖ I2OSP(kdf_id, 2) ‖ I2OSP(aead_id, 2).
    var identifier: [UInt8] {
        Array("HPKE".utf8) + bigEndian(kem) + bigEndian(kdf) + bigEndian(aead)
    }

    /// LabeledExtract(salt, label, ikm) = Extract(salt, "HPKE-v1" ‖ suite_id ‖ label ‖ ikm).
    func labeledExtract(salt: [UInt8], label: String, inputKeyingMaterial: [UInt8]) -> [UInt8] {
        var labeled = Array("HPKE-v1".utf8) + identifier + Array(label.utf8) + inputKeyingMaterial
        defer { wipe(&labeled) }
        return HKDF.extract(salt: salt, inputKeyingMaterial: labeled)
    }

    /// LabeledExpand(prk, label, info, L) = Expand(prk, I2OSP(L, 2) ‖ "HPKE-v1" ‖ suite_id ‖ label ‖ info, L).
    func labeledExpand(pseudorandomKey: [UInt8], label: String, info: [UInt8], length: Int) -> [UInt8] {
        let labeled = bigEndian(UInt16(length)) + Array("HPKE-v1".utf8) + identifier + Array(label.utf8) + info
        return HKDF.expand(pseudorandomKey: pseudorandomKey, info: labeled, length: length)
    }

    private func bigEndian(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
}

/// The outputs of the base-mode key schedule (RFC 9180 §5.1, mode_base,
/// empty psk and psk_id).
struct HPKEKeySchedule {
    let keyScheduleContext: [UInt8]
    private(set) var key: [UInt8]
    private(set) var baseNonce: [UInt8]
    private(set) var exporterSecret: [UInt8]

    init(suite: HPKESuite, sharedSecret: [UInt8], info: [UInt8]) {
        let modeBase: UInt8 = 0
        let pskIDHash = suite.labeledExtract(salt: [], label: "psk_id_hash", inputKeyingMaterial: [])
        let infoHash = suite.labeledExtract(salt: [], label: "info_hash", inputKeyingMaterial: info)
        keyScheduleContext = [modeBase] + pskIDHash + infoHash
        var secret = suite.labeledExtract(salt: sharedSecret, label: "secret", inputKeyingMaterial: [])
        key = suite.labeledExpand(pseudorandomKey: secret, label: "key", info: keyScheduleContext, length: suite.keyCount)
        baseNonce = suite.labeledExpand(pseudorandomKey: secret, label: "base_nonce", info: keyScheduleContext, length: suite.nonceCount)
        exporterSecret = suite.labeledExpand(pseudorandomKey: secret, label: "exp", info: keyScheduleContext, length: HKDF.hashCount)
        wipe(&secret)
    }

    /// Overwrites the secrets once they are no longer needed.
    mutating func wipeSecrets() {
        wipe(&key)
        wipe(&baseNonce)
        wipe(&exporterSecret)
    }
}
