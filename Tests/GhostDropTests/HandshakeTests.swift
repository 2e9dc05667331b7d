import BluetoothCore
import GhostDrop
import Testing

@Suite struct HandshakeTests {
    static func seeded(_ seed: UInt8) -> RandomSource {
        var counter: UInt8 = 0
        return RandomSource { count in
            counter &+= 1
            return (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) ^ seed ^ counter }
        }
    }

    @Test func bothSidesDeriveTheSameSecretsAndCode() throws {
        let session = GhostUUID("26E067D7-2C95-4F96-9152-6ED1C1BE47F1")!
        let a = try GhostEphemeral(random: Self.seeded(1))
        let b = try GhostEphemeral(random: Self.seeded(2))
        #expect(a.publicKey.count == 65 && a.publicKey[0] == 4)
        #expect(a.nonce.count == 16)
        let sa = try GhostHandshake.secrets(local: a, sessionID: session, remoteKey: b.publicKey, remoteNonce: b.nonce)
        let sb = try GhostHandshake.secrets(local: b, sessionID: session, remoteKey: a.publicKey, remoteNonce: a.nonce)
        #expect(sa == sb)
        #expect(sa.sas.count == 6)
        let other = try GhostHandshake.secrets(local: a, sessionID: GhostUUID("26E067D7-2C95-4F96-9152-6ED1C1BE47F2")!,
                                               remoteKey: b.publicKey, remoteNonce: b.nonce)
        #expect(other.transcriptHash != sa.transcriptHash)
    }

    @Test func transcriptPutsTheSmallerKeyFirst() {
        let id = GhostUUID(bytes: Array(0..<16))!
        let t = GhostHandshake.transcript(sessionID: id, localKey: [4, 9], localNonce: [1], remoteKey: [4, 2], remoteNonce: [3])
        #expect(t == Array("GhostDrop-v1".utf8) + Array(0..<16) + [4, 2, 3, 4, 9, 1])
    }

    @Test func codeIsSixDigitsWithLeadingZeros() {
        #expect(GhostHandshake.sas(transcriptHash: [0, 0, 0, 42, 0xFF]) == "000042")
        // 0xFFFFFFFF = 4294967295, mod 10^6 = 967295.
        #expect(GhostHandshake.sas(transcriptHash: [0xFF, 0xFF, 0xFF, 0xFF]) == "967295")
    }

    @Test func aPeerKeyOffTheCurveIsRefused() throws {
        let a = try GhostEphemeral(random: Self.seeded(1))
        var bad = try GhostEphemeral(random: Self.seeded(2)).publicKey
        bad[64] ^= 1
        #expect(throws: GhostCryptoError.badPublicKey) {
            try GhostHandshake.secrets(local: a, sessionID: GhostUUID(bytes: Array(0..<16))!, remoteKey: bad, remoteNonce: [])
        }
    }

    @Test func directionalCiphersOpenEachOtherAndNothingElse() throws {
        let secrets = GhostHandshake.secrets(sharedSecret: Array(0..<32), transcript: Array("t".utf8))
        let sender = GhostCipher(secrets: secrets, role: .sender)
        let receiver = GhostCipher(secrets: secrets, role: .receiver)
        let sealed = sender.seal(Array("chunk".utf8), sequence: 7)
        #expect(sealed.count == 12 + 5 + 16)
        #expect(try receiver.open(sealed, sequence: 7) == Array("chunk".utf8))
        // The nonce says which sequence: another sequence is refused before AES-GCM runs.
        #expect(throws: GhostCryptoError.unexpectedNonce) { try receiver.open(sealed, sequence: 8) }
        // A sender cannot open its own direction.
        #expect(throws: GhostCryptoError.unexpectedNonce) { try sender.open(sealed, sequence: 7) }
        var tampered = sealed
        tampered[14] ^= 0x80
        #expect(throws: GhostCryptoError.authenticationFailed) { try receiver.open(tampered, sequence: 7) }
        // The nonce prefix: SHA-256("ghostdrop-sender")[0..<4] then the sequence, big-endian.
        #expect(Array(sealed[4..<12]) == [0, 0, 0, 0, 0, 0, 0, 7])
    }
}
