/// The receiver's HPKE context, reduced to what NotifBridge uses: the
/// secret-export interface (RFC 9180 §5.3) of a base-mode context for
/// X-Wing / HKDF-SHA256 / AES-256-GCM. The AEAD key and nonce of the
/// context itself are never used, so only exporter_secret is kept.
public struct HPKEExporter {
    private let suite: HPKESuite
    /// exporter_secret: what NotifBridge keys persist.
    public let exporterSecret: [UInt8]

    /// The key schedule from the X-Wing shared secret and the info string.
    public init(sharedSecret: [UInt8], info: [UInt8]) {
        self.init(suite: .notifBridge, sharedSecret: sharedSecret, info: info)
    }

    /// A context restored from a stored exporter_secret.
    public init(exporterSecret: [UInt8]) {
        suite = .notifBridge
        self.exporterSecret = exporterSecret
    }

    init(suite: HPKESuite, sharedSecret: [UInt8], info: [UInt8]) {
        self.suite = suite
        var schedule = HPKEKeySchedule(suite: suite, sharedSecret: sharedSecret, info: info)
        exporterSecret = Array(schedule.exporterSecret)
        schedule.wipeSecrets()
    }

    /// `length` is the caller's choice (32 for an AES-256 key), at most 255 · 32.
    /// Export(exporter_context, L) = LabeledExpand(exporter_secret, "sec", exporter_context, L).
    public func export(context: [UInt8], length: Int) -> [UInt8] {
        suite.labeledExpand(pseudorandomKey: exporterSecret, label: "sec", info: context, length: length)
    }
}
