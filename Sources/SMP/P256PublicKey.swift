import BluetoothCore
import CCrypto

/// A P-256 public key as the Pairing Public Key PDU carries it: X then Y,
/// each 32 octets least significant first.
public struct P256PublicKey: Equatable {
    public let wireBytes: [UInt8]

    public init?<C: Collection>(wireBytes: C) where C.Element == UInt8 {
        guard wireBytes.count == 64 else { return nil }
        self.wireBytes = Array(wireBytes)
    }

    /// From the printed (most significant octet first) coordinates.
    public init?(bigEndianX x: [UInt8], y: [UInt8]) {
        guard x.count == 32, y.count == 32 else { return nil }
        wireBytes = x.reversed() + y.reversed()
    }

    /// X in SMP order, the U/V inputs of f4 and g2.
    public var x: [UInt8] { Array(wireBytes[0..<32]) }
    public var y: [UInt8] { Array(wireBytes[32..<64]) }

    /// SEC1 uncompressed encoding, 0x04 || X || Y most significant first:
    /// what OpenSSL reads and writes.
    var sec1Uncompressed: [UInt8] {
        [0x04] + Array(wireBytes[0..<32].reversed()) + Array(wireBytes[32..<64].reversed())
    }

    init?(sec1Uncompressed point: [UInt8]) {
        guard point.count == 65, point[0] == 0x04 else { return nil }
        wireBytes = Array(point[1..<33].reversed()) + Array(point[33..<65].reversed())
    }

    /// The debug public key of Vol 3 Part H 2.3.5.6.1. Its private key is
    /// published, so a peer that sends it has no secrecy at all: refused
    /// unless debug keys are explicitly allowed.
    public static let debugKey = P256PublicKey(
        bigEndianX: bytesFromHex("20b003d2f297be2c5e2c83a7e9f9a5b9eff49111acf4fddbcc0301480e359de6") ?? [],
        y: bytesFromHex("dc809c49652aeb6d63329abf5a52155c766345c28fed3024741c8ed01589d28b") ?? [])!

    /// True when the key is a point on P-256 (coordinates below the field
    /// prime and satisfying the curve equation). A key that fails this is the
    /// invalid-curve attack of CVE-2018-5383 and must never reach ECDH.
    public var isOnCurve: Bool {
        guard let group = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1) else {
            ERR_clear_error()
            return false
        }
        defer { EC_GROUP_free(group) }
        guard let point = EC_POINT_new(group) else {
            ERR_clear_error()
            return false
        }
        defer { EC_POINT_free(point) }
        let encoded = sec1Uncompressed
        // oct2point already refuses coordinates >= p and off-curve points;
        // the explicit curve check keeps that guarantee independent of it.
        guard EC_POINT_oct2point(group, point, encoded, encoded.count, nil) == 1,
              EC_POINT_is_on_curve(group, point, nil) == 1 else {
            ERR_clear_error()
            return false
        }
        return true
    }
}
