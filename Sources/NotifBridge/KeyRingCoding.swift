import BluetoothCore

/// Why stored key bytes were refused.
public enum KeyRingCodingError: Error, Equatable, CustomStringConvertible {
    case notAKeyRing
    case unsupportedVersion(UInt8)
    case checksumMismatch
    case truncated
    case invalid(String)

    public var description: String {
        switch self {
        case .notAKeyRing: return "not a NotifBridge key file"
        case .unsupportedVersion(let v): return "key file version \(v) is not known"
        case .checksumMismatch: return "key file checksum does not match (damaged)"
        case .truncated: return "key file is truncated"
        case .invalid(let why): return "key file is invalid: \(why)"
        }
    }
}

/// The key ring as a compact binary file, written before any receipt that
/// depends on it goes out (docs/NOTIFBRIDGE.md, "Persistence"). Version 2:
///
///     "NBKR" | 2 | prepared count (u8) | per prepared key:
///         exchange id (16) | seed (32) | public key length (u16 LE) | public key
///     | generation count (u8) | per generation, newest first:
///         exchange id (16) | grace used (u32 LE, ms; 0xFFFFFFFF = the newest, not replaced)
///         | info length (u16 LE) | info | exporter secret (32)
///     | spent count (u8) | exchange ids (16 each), oldest first
///     | removeAll flag (u8) | its sentAt (f64 bits, u64 LE)
///     | ledger count (u16 LE) | per entry, oldest first: identity digest (16) | sentAt (f64 bits, u64 LE)
///     | delivery count (u16 LE) | per delivery, oldest first: session (16) | SHA-256 (32)
///     | the first 8 bytes of SHA-256 of everything before
///
/// Version 1 (no grace used, an `activated` flag per prepared key, nothing
/// after the generations) is still read.
///
/// The clock is monotonic and starts again at every boot, so a replaced
/// generation's grace is stored as the part of it already used. The file
/// is written at least every `graceWriteInterval` while a grace runs, and a
/// load counts that interval as used (the time since the last write, or the
/// head unit being off, is unknown): a restart never gives a fresh 300 s.
extension KeyRing {
    static let magic: [UInt8] = Array("NBKR".utf8)
    static let fileVersion: UInt8 = 2
    static let checksumLength = 8
    static let secretLength = 32
    static let notReplaced: UInt32 = 0xFFFF_FFFF
    /// How often the ring is written while a replaced generation's grace runs.
    public static let graceWriteInterval: Int64 = 30_000

    public func encoded(now: Instant, sha256: ([UInt8]) -> [UInt8]) -> [UInt8] {
        var w = ByteWriter(capacity: 64 + prepared.count * 1300 + generations.count * 120 + spent.count * 16
                           + ledger.count * 24 + deliveries.count * 48)
        w.append(KeyRing.magic)
        w.u8(KeyRing.fileVersion)
        w.u8(UInt8(prepared.count))
        for p in prepared {
            w.append(p.exchangeID.uuid.fullLittleEndian)
            w.append(p.seed)
            w.u16(UInt16(p.publicKey.count))
            w.append(p.publicKey)
        }
        w.u8(UInt8(generations.count))
        for g in generations {
            w.append(g.exchangeID.uuid.fullLittleEndian)
            if let replaced = g.replacedAt {
                w.u32(UInt32(min(KeyRing.grace, max(0, now.millisecondsSince(replaced)))))
            } else {
                w.u32(KeyRing.notReplaced)
            }
            w.u16(UInt16(g.info.count))
            w.append(g.info)
            w.append(g.exporterSecret)
        }
        w.u8(UInt8(spent.count))
        for id in spent { w.append(id.uuid.fullLittleEndian) }
        w.u8(ledger.clearedAt == nil ? 0 : 1)
        w.u64((ledger.clearedAt ?? 0).bitPattern)
        w.u16(UInt16(ledger.order.count))
        for identity in ledger.order {
            w.append(identity.bytes)
            w.u64((ledger.sentAt(identity) ?? 0).bitPattern)
        }
        w.u16(UInt16(deliveries.order.count))
        for d in deliveries.order {
            w.append(d.session.uuid.fullLittleEndian)
            w.append(d.digest)
        }
        let body = w.bytes
        return body + sha256(body).prefix(KeyRing.checksumLength)
    }

    public init(decoding bytes: [UInt8], now: Instant, sha256: ([UInt8]) -> [UInt8]) throws(KeyRingCodingError) {
        guard bytes.count >= KeyRing.magic.count + 1, bytes[0..<4].elementsEqual(KeyRing.magic) else { throw .notAKeyRing }
        let version = bytes[4]
        guard version == 1 || version == 2 else { throw .unsupportedVersion(version) }
        guard bytes.count >= 5 + 2 + KeyRing.checksumLength else { throw .truncated }
        let body = Array(bytes[..<(bytes.count - KeyRing.checksumLength)])
        guard sha256(body).prefix(KeyRing.checksumLength).elementsEqual(bytes[(bytes.count - KeyRing.checksumLength)...]) else {
            throw .checksumMismatch
        }
        var r = ByteReader(body)
        _ = r.skip(5)
        self.init()
        guard let preparedCount = r.u8() else { throw .truncated }
        guard Int(preparedCount) <= KeyRing.maxPrepared else { throw .invalid("\(preparedCount) prepared keys") }
        for _ in 0..<preparedCount {
            guard let id = r.bytes(16) else { throw .truncated }
            var activated: UInt8 = 0
            if version == 1 {
                guard let flag = r.u8() else { throw .truncated }
                activated = flag
            }
            guard let seed = r.array(PreparedKey.seedLength), let length = r.u16(), let publicKey = r.array(Int(length)) else { throw .truncated }
            guard let uuid = BluetoothUUID(littleEndian: id) else { throw .invalid("exchange id") }
            guard activated <= 1 else { throw .invalid("activated flag \(activated)") }
            // Version 1 kept activated seeds; version 2 drops them and remembers the exchange.
            if activated == 0 {
                prepared.append(PreparedKey(exchangeID: ExchangeID(uuid), seed: seed, publicKey: publicKey))
            } else {
                spent.append(ExchangeID(uuid))
            }
        }
        guard let generationCount = r.u8() else { throw .truncated }
        guard Int(generationCount) <= KeyRing.maxGenerations else { throw .invalid("\(generationCount) generations") }
        for _ in 0..<generationCount {
            guard let id = r.bytes(16) else { throw .truncated }
            var used: Int64? = nil
            if version == 1 {
                guard let replaced = r.u8() else { throw .truncated }
                guard replaced <= 1 else { throw .invalid("replaced flag \(replaced)") }
                if replaced == 1 { used = 0 }
            } else {
                guard let stored = r.u32() else { throw .truncated }
                if stored != KeyRing.notReplaced {
                    guard Int64(stored) <= KeyRing.grace else { throw .invalid("grace used \(stored) ms") }
                    used = Int64(stored)
                }
            }
            guard let length = r.u16(), let info = r.array(Int(length)), let secret = r.array(KeyRing.secretLength) else { throw .truncated }
            guard let uuid = BluetoothUUID(littleEndian: id) else { throw .invalid("exchange id") }
            let replacedAt = used.map { now.adding(milliseconds: -($0 + KeyRing.graceWriteInterval)) }
            generations.append(KeyGeneration(exchangeID: ExchangeID(uuid), info: info, exporterSecret: secret, replacedAt: replacedAt))
        }
        if version == 1 {
            // Every generation of a version 1 file was activated.
            for g in generations.reversed() where !spent.contains(g.exchangeID) { spent.append(g.exchangeID) }
        } else {
            guard let spentCount = r.u8() else { throw .truncated }
            guard Int(spentCount) <= KeyRing.maxSpent else { throw .invalid("\(spentCount) spent exchanges") }
            for _ in 0..<spentCount {
                guard let id = r.bytes(16) else { throw .truncated }
                guard let uuid = BluetoothUUID(littleEndian: id) else { throw .invalid("exchange id") }
                spent.append(ExchangeID(uuid))
            }
            guard let cleared = r.u8(), let clearedBits = r.u64() else { throw .truncated }
            guard cleared <= 1 else { throw .invalid("removeAll flag \(cleared)") }
            // A time that is not a number never equals itself: replay checks
            // against it would never match, so a file holding one is damaged.
            guard cleared == 0 || Double(bitPattern: clearedBits).isFinite else { throw .invalid("removeAll time") }
            guard let ledgerCount = r.u16() else { throw .truncated }
            guard Int(ledgerCount) <= NotificationLedger.capacity else { throw .invalid("\(ledgerCount) ledger entries") }
            var entries: [(IdentityDigest, Double)] = []
            for _ in 0..<ledgerCount {
                guard let digest = r.bytes(IdentityDigest.length).flatMap(IdentityDigest.init), let bits = r.u64() else { throw .truncated }
                guard Double(bitPattern: bits).isFinite else { throw .invalid("ledger time") }
                entries.append((digest, Double(bitPattern: bits)))
            }
            ledger.restore(clearedAt: cleared == 1 ? Double(bitPattern: clearedBits) : nil, entries: entries)
            guard let deliveryCount = r.u16() else { throw .truncated }
            guard Int(deliveryCount) <= DeliveryLog.capacity else { throw .invalid("\(deliveryCount) deliveries") }
            for _ in 0..<deliveryCount {
                guard let id = r.bytes(16), let digest = r.array(DeliveryKey.digestLength) else { throw .truncated }
                guard let uuid = BluetoothUUID(littleEndian: id) else { throw .invalid("session id") }
                deliveries.insert(DeliveryKey(session: SessionID(uuid), digest: digest))
            }
        }
        guard r.isAtEnd else { throw .invalid("\(r.remainingCount) bytes after the last section") }
    }

    /// A replaced generation was loaded: its grace goes on from what was
    /// used, less the write interval; the ring should be written again so
    /// that the next restart counts from here.
    public var hasGraceRunning: Bool { generations.contains { $0.replacedAt != nil } }
}
