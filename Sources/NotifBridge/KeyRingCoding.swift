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

/// The key ring as a compact binary file, written before any key receipt
/// goes out (docs/NOTIFBRIDGE.md, "Persistence"):
///
///     "NBKR" | version 1 | prepared count (u8) | per prepared key:
///         exchange id (16) | activated (u8) | seed (32) | public key length (u16 LE) | public key
///     | generation count (u8) | per generation, newest first:
///         exchange id (16) | replaced (u8) | info length (u16 LE) | info | exporter secret (32)
///     | the first 8 bytes of SHA-256 of everything before
///
/// Replacement times are monotonic-clock instants and mean nothing after a
/// restart: a replaced generation is loaded with a fresh grace period.
extension KeyRing {
    static let magic: [UInt8] = Array("NBKR".utf8)
    static let fileVersion: UInt8 = 1
    static let checksumLength = 8
    static let secretLength = 32

    public func encoded(sha256: ([UInt8]) -> [UInt8]) -> [UInt8] {
        var w = ByteWriter(capacity: 64 + prepared.count * 1300 + generations.count * 120)
        w.append(KeyRing.magic)
        w.u8(KeyRing.fileVersion)
        w.u8(UInt8(prepared.count))
        for p in prepared {
            w.append(p.key.exchangeID.uuid.fullLittleEndian)
            w.u8(p.activated ? 1 : 0)
            w.append(p.key.seed)
            w.u16(UInt16(p.key.publicKey.count))
            w.append(p.key.publicKey)
        }
        w.u8(UInt8(generations.count))
        for g in generations {
            w.append(g.exchangeID.uuid.fullLittleEndian)
            w.u8(g.replacedAt == nil ? 0 : 1)
            w.u16(UInt16(g.info.count))
            w.append(g.info)
            w.append(g.exporterSecret)
        }
        let body = w.bytes
        return body + sha256(body).prefix(KeyRing.checksumLength)
    }

    public init(decoding bytes: [UInt8], now: Instant, sha256: ([UInt8]) -> [UInt8]) throws(KeyRingCodingError) {
        guard bytes.count >= KeyRing.magic.count + 1, bytes[0..<4].elementsEqual(KeyRing.magic) else { throw .notAKeyRing }
        guard bytes[4] == KeyRing.fileVersion else { throw .unsupportedVersion(bytes[4]) }
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
            guard let id = r.bytes(16), let activated = r.u8(), let seed = r.array(PreparedKey.seedLength),
                  let length = r.u16(), let publicKey = r.array(Int(length)) else { throw .truncated }
            guard let uuid = BluetoothUUID(littleEndian: id) else { throw .invalid("exchange id") }
            guard activated <= 1 else { throw .invalid("activated flag \(activated)") }
            prepared.append(Prepared(key: PreparedKey(exchangeID: ExchangeID(uuid), seed: seed, publicKey: publicKey),
                                     activated: activated != 0))
        }
        guard let generationCount = r.u8() else { throw .truncated }
        guard Int(generationCount) <= KeyRing.maxGenerations else { throw .invalid("\(generationCount) generations") }
        for _ in 0..<generationCount {
            guard let id = r.bytes(16), let replaced = r.u8(), let length = r.u16(), let info = r.array(Int(length)),
                  let secret = r.array(KeyRing.secretLength) else { throw .truncated }
            guard let uuid = BluetoothUUID(littleEndian: id) else { throw .invalid("exchange id") }
            guard replaced <= 1 else { throw .invalid("replaced flag \(replaced)") }
            generations.append(KeyGeneration(exchangeID: ExchangeID(uuid), info: info, exporterSecret: secret,
                                             replacedAt: replaced != 0 ? now : nil))
        }
        guard r.isAtEnd else { throw .invalid("\(r.remainingCount) bytes after the generations") }
    }
}
