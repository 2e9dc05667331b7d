/// The cryptography the receiver needs, injected so the protocol layer is
/// tested on its own (static requirements: no existential is ever formed,
/// which Embedded Swift would refuse). The real conformance wraps the
/// project's X-Wing / HPKE / AES-GCM code (docs/NOTIFBRIDGE.md, "Cryptography").
public protocol NotifBridgeCryptography {
    /// X-Wing key pair from the 32-byte seed, decapsulation of
    /// `encapsulatedKey`, and the HPKE base-mode key schedule with `info`:
    /// the exporter secret. nil when the seed does not give `publicKey` or
    /// the encapsulated key is refused.
    static func exporterSecret(seed: [UInt8], publicKey: [UInt8], encapsulatedKey: [UInt8], info: [UInt8]) -> [UInt8]?
    /// HPKE secret export: the 32-byte AES-256-GCM key for `context`.
    static func export(exporterSecret: [UInt8], context: [UInt8]) -> [UInt8]
    /// AES-256-GCM open of nonce ‖ ciphertext ‖ tag, no AAD; nil when the tag does not verify.
    static func open(key: [UInt8], sealed: [UInt8]) -> [UInt8]?
    /// AES-256-GCM seal with `nonce` (12 fresh random bytes, drawn by the
    /// receiver from its random source): nonce ‖ ciphertext ‖ tag.
    static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8]) -> [UInt8]
    static func sha256(_ bytes: [UInt8]) -> [UInt8]
    /// Random bytes: the receiver's random source unless it is given one.
    static func randomBytes(_ count: Int) -> [UInt8]
}

/// The per-session, per-direction export contexts.
public enum ExportContext {
    public static func hostToAccessory(info: [UInt8], session: SessionID) -> [UInt8] {
        info + Array(("-HostToAccessory-" + session.description).utf8)
    }

    public static func accessoryToHost(info: [UInt8], session: SessionID) -> [UInt8] {
        info + Array(("-AccessoryToHost-" + session.description).utf8)
    }
}
