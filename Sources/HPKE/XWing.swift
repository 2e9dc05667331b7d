import CCrypto

/// X-Wing, the hybrid KEM of draft-connolly-cfrg-xwing-kem-06 (ML-KEM-768
/// and X25519) as the phone's CryptoKit implements it.
public enum XWing {
    public static let seedCount = 32
    public static let publicKeyCount = MLKEM768.encapsulationKeyCount + X25519PrivateKey.keyCount        // 1216
    public static let encapsulatedKeyCount = MLKEM768.ciphertextCount + X25519PrivateKey.keyCount       // 1120
    public static let sharedSecretCount = 32
    /// The combiner's label, ASCII art of the two wings: \.//^\ .
    static let label: [UInt8] = [0x5c, 0x2e, 0x2f, 0x2f, 0x5e, 0x5c]

    /// ss = SHA3-256(ss_M ‖ ss_X ‖ ct_X ‖ pk_X ‖ label) into `output` (32 bytes).
    static func combine(mlkemSecret: UnsafePointer<UInt8>, x25519Secret: UnsafePointer<UInt8>, x25519Ciphertext: UnsafePointer<UInt8>,
                        x25519PublicKey: UnsafePointer<UInt8>, into output: UnsafeMutablePointer<UInt8>) throws(HPKEError) {
        let keccak = Keccak()
        keccak.start(.sha3_256)
        keccak.absorb(mlkemSecret, count: 32)
        keccak.absorb(x25519Secret, count: 32)
        keccak.absorb(x25519Ciphertext, count: 32)
        keccak.absorb(x25519PublicKey, count: 32)
        keccak.absorb(label)
        keccak.finish(into: output, count: 32)
        guard !keccak.failed else { throw .libcrypto }
    }

    /// Encapsulate to `publicKey` with the 64 bytes of randomness `eseed`
    /// given (EncapsulateDerand): the phone's side, here for the draft's
    /// vectors and for tests. Returns (ss, ct_M ‖ ct_X).
    public static func encapsulate(publicKey: [UInt8], eseed: [UInt8]) throws(HPKEError) -> (sharedSecret: [UInt8], encapsulatedKey: [UInt8]) {
        guard publicKey.count == publicKeyCount, eseed.count == 64 else { throw .invalidLength }
        let pkM = Array(publicKey[0..<MLKEM768.encapsulationKeyCount])
        let pkX = Array(publicKey[MLKEM768.encapsulationKeyCount...])
        var ephemeral = Array(eseed[32..<64])
        defer { wipe(&ephemeral) }
        let ephemeralKey = try ephemeral.withUnsafeBufferPointer { (scalar) throws(HPKEError) in try X25519PrivateKey(scalar: scalar.baseAddress!) }
        var ssX = [UInt8](repeating: 0, count: 32)
        defer { wipe(&ssX) }
        try pkX.withUnsafeBufferPointer { (peer) throws(HPKEError) in try ephemeralKey.sharedSecret(with: peer.baseAddress!, into: &ssX) }
        let ctX = ephemeralKey.publicKey
        var (ssM, ctM) = try MLKEM768.encapsulate(encapsulationKey: pkM, message: Array(eseed[0..<32]))
        defer { wipe(&ssM) }
        var ss = [UInt8](repeating: 0, count: sharedSecretCount)
        try combine(mlkemSecret: ssM, x25519Secret: ssX, x25519Ciphertext: ctX, x25519PublicKey: pkX, into: &ss)
        return (ss, ctM + ctX)
    }
}

/// An X-Wing decapsulation key, expanded from the phone's 32-byte seed
/// (draft-06 §5.2): SHAKE256(seed, 96) = d ‖ z ‖ sk_X, (ek_M, dk_M) =
/// ML-KEM-768.KeyGen_internal(d, z), pk = ek_M ‖ X25519(sk_X, 9).
/// A class so that `deinit` wipes the expanded secrets.
public final class XWingPrivateKey {
    /// dk_M, 2400 bytes, in memory of its own so no copy of it is left behind.
    private let mlkemKey: UnsafeMutablePointer<UInt8>
    private let x25519Key: X25519PrivateKey
    /// pk = ek_M ‖ pk_X, 1216 bytes.
    public let publicKey: [UInt8]

    public init(seed: [UInt8]) throws(HPKEError) {
        guard seed.count == XWing.seedCount else { throw .invalidLength }
        let expanded = UnsafeMutablePointer<UInt8>.allocate(capacity: 96)
        defer {
            wipe(expanded, count: 96)
            expanded.deallocate()
        }
        let keccak = Keccak()
        seed.withUnsafeBytes { keccak.hash(.shake256, $0.baseAddress!, count: 32, into: expanded, outputCount: 96) }
        guard !keccak.failed else { throw .libcrypto }

        let mlkemKey = UnsafeMutablePointer<UInt8>.allocate(capacity: MLKEM768.decapsulationKeyCount)
        mlkemKey.initialize(repeating: 0, count: MLKEM768.decapsulationKeyCount)
        var publicKey = [UInt8](repeating: 0, count: XWing.publicKeyCount)
        let failed = publicKey.withUnsafeMutableBufferPointer { pk in
            MLKEM768.keyGen(d: expanded, z: expanded + 32, encapsulationKey: pk.baseAddress!, decapsulationKey: mlkemKey)
        }
        let x25519Key: X25519PrivateKey
        do throws(HPKEError) {
            guard !failed else { throw HPKEError.libcrypto }
            x25519Key = try X25519PrivateKey(scalar: expanded + 64)
        } catch {
            wipe(mlkemKey, count: MLKEM768.decapsulationKeyCount)
            mlkemKey.deallocate()
            throw error
        }
        publicKey.replaceSubrange(MLKEM768.encapsulationKeyCount..., with: x25519Key.publicKey)
        self.mlkemKey = mlkemKey
        self.x25519Key = x25519Key
        self.publicKey = publicKey
    }

    /// The key for `seed`, refused with `publicKeyMismatch` unless its public
    /// key is `publicKey` (what the phone sent alongside the seed).
    public convenience init(seed: [UInt8], publicKey: [UInt8]) throws(HPKEError) {
        try self.init(seed: seed)
        guard self.publicKey == publicKey else { throw .publicKeyMismatch }
    }

    deinit {
        wipe(mlkemKey, count: MLKEM768.decapsulationKeyCount)
        mlkemKey.deallocate()
    }

    /// ss from enc = ct_M (1088 bytes) ‖ ct_X (32 bytes) (draft-06 §5.4).
    /// An altered ct_M does not fail: ML-KEM's implicit rejection yields an
    /// unrelated secret, and the AES-GCM tag refuses what it decrypts.
    public func decapsulate(_ encapsulatedKey: [UInt8]) throws(HPKEError) -> [UInt8] {
        guard encapsulatedKey.count == XWing.encapsulatedKeyCount else { throw .invalidLength }
        let secrets = UnsafeMutablePointer<UInt8>.allocate(capacity: 64)
        secrets.initialize(repeating: 0, count: 64)
        defer {
            wipe(secrets, count: 64)
            secrets.deallocate()
        }
        var sharedSecret = [UInt8](repeating: 0, count: XWing.sharedSecretCount)
        try encapsulatedKey.withUnsafeBufferPointer { (enc) throws(HPKEError) in
            let ctM = enc.baseAddress!
            let ctX = ctM + MLKEM768.ciphertextCount
            guard !MLKEM768.decapsulate(decapsulationKey: mlkemKey, ciphertext: ctM, sharedKey: secrets) else { throw .libcrypto }
            try x25519Key.sharedSecret(with: ctX, into: secrets + 32)
            try publicKey.withUnsafeBufferPointer { (pk) throws(HPKEError) in
                try sharedSecret.withUnsafeMutableBufferPointer { (ss) throws(HPKEError) in
                    try XWing.combine(mlkemSecret: secrets, x25519Secret: secrets + 32, x25519Ciphertext: ctX,
                                      x25519PublicKey: pk.baseAddress! + MLKEM768.encapsulationKeyCount, into: ss.baseAddress!)
                }
            }
        }
        return sharedSecret
    }
}
