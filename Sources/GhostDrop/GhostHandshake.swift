import BluetoothCore
import HPKE
import SMP

/// Why a handshake or a sealed frame was refused.
public enum GhostCryptoError: Error, Equatable, CustomStringConvertible {
    /// The peer's ephemeral key is not an uncompressed P-256 point on the curve.
    case badPublicKey
    /// No randomness for the ephemeral key or the nonce.
    case randomUnavailable
    /// The nonce inside `combined` is not the one GhostDrop derives for the sequence.
    case unexpectedNonce
    /// AES-GCM refused the tag, or the blob is too short.
    case authenticationFailed

    public var description: String {
        switch self {
        case .badPublicKey: return "bad public key"
        case .randomUnavailable: return "no randomness"
        case .unexpectedNonce: return "unexpected nonce"
        case .authenticationFailed: return "authentication failed"
        }
    }
}

/// What the handshake gives both sides (`HandshakeSecrets` and the SAS).
public struct GhostSessionSecrets: Equatable {
    public let transcriptHash: [UInt8]
    /// The first 32 bytes of the HKDF output: the directional keys come from it.
    public let encryptionKeyMaterial: [UInt8]
    /// The last 32: the reference derives a MAC key from them and never uses it.
    public let macKeyMaterial: [UInt8]

    /// The 6-digit code both screens show.
    public var sas: String { GhostHandshake.sas(transcriptHash: transcriptHash) }
}

/// One side's ephemeral P-256 key and 16-byte nonce, fresh for each hello.
public struct GhostEphemeral {
    let keyPair: P256KeyPair
    /// X9.63 uncompressed: 0x04 ‖ X ‖ Y, most significant byte first.
    public let publicKey: [UInt8]
    public let nonce: [UInt8]

    public init(random: RandomSource) throws(GhostCryptoError) {
        guard let pair = try? P256KeyPair.generate(random: random) else { throw .randomUnavailable }
        guard let nonce = random.generate(16), nonce.count == 16 else { throw .randomUnavailable }
        keyPair = pair
        publicKey = [0x04] + pair.publicKey.wireBytes[0..<32].reversed() + pair.publicKey.wireBytes[32..<64].reversed()
        self.nonce = nonce
    }

    /// ECDH with the peer's X9.63 key: the shared point's X, big-endian
    /// (CryptoKit's `SharedSecret`). SMP's key pair checks the point is on
    /// the curve first and answers in SMP's little-endian order.
    func sharedSecret(peer: [UInt8]) throws(GhostCryptoError) -> [UInt8] {
        guard peer.count == 65, peer[0] == 0x04,
              let key = P256PublicKey(bigEndianX: Array(peer[1..<33]), y: Array(peer[33..<65])),
              let secret = try? keyPair.dhKey(with: key) else { throw .badPublicKey }
        return secret.reversed()
    }
}

/// GhostDrop's handshake arithmetic (Handshake.swift of the reference).
public enum GhostHandshake {
    static let protocolLabel = Array("GhostDrop-v1".utf8)
    static let keysInfo = Array("GhostDrop Session Keys".utf8)

    /// "GhostDrop-v1" ‖ session ID ‖ (key, nonce) of the peer whose key sorts
    /// first byte-wise ‖ (key, nonce) of the other: the same bytes on both sides.
    public static func transcript(sessionID: GhostUUID, localKey: [UInt8], localNonce: [UInt8],
                                  remoteKey: [UInt8], remoteNonce: [UInt8]) -> [UInt8] {
        let localFirst = localKey.lexicographicallyPrecedes(remoteKey)
        var out = protocolLabel + sessionID.bytes
        out += localFirst ? localKey + localNonce : remoteKey + remoteNonce
        out += localFirst ? remoteKey + remoteNonce : localKey + localNonce
        return out
    }

    /// HKDF-SHA256(shared secret, salt: SHA-256(transcript), info: "GhostDrop Session Keys", 64 bytes).
    public static func secrets(sharedSecret: [UInt8], transcript: [UInt8]) -> GhostSessionSecrets {
        let transcriptHash = sha256(transcript)
        let prk = HKDF.extract(salt: transcriptHash, inputKeyingMaterial: sharedSecret)
        let material = HKDF.expand(pseudorandomKey: prk, info: keysInfo, length: 64)
        return GhostSessionSecrets(transcriptHash: transcriptHash, encryptionKeyMaterial: Array(material[0..<32]),
                                   macKeyMaterial: Array(material[32..<64]))
    }

    /// The local side's secrets once both hellos are known.
    public static func secrets(local: GhostEphemeral, sessionID: GhostUUID, remoteKey: [UInt8],
                               remoteNonce: [UInt8]) throws(GhostCryptoError) -> GhostSessionSecrets {
        let shared = try local.sharedSecret(peer: remoteKey)
        return secrets(sharedSecret: shared, transcript: transcript(sessionID: sessionID, localKey: local.publicKey,
                                                                    localNonce: local.nonce, remoteKey: remoteKey,
                                                                    remoteNonce: remoteNonce))
    }

    /// The first four bytes of the transcript hash, big-endian, modulo 10^6, in six digits.
    public static func sas(transcriptHash: [UInt8]) -> String {
        var value: UInt32 = 0
        for byte in transcriptHash.prefix(4) { value = value << 8 | UInt32(byte) }
        let digits = String(value % 1_000_000)
        return String(repeating: "0", count: 6 - digits.count) + digits
    }
}
