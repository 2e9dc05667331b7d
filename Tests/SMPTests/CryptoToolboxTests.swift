import Testing
import BluetoothCore
@testable import SMP

/// Every toolbox function against the specification's sample data
/// (Vol 3 Part H Appendix D), cross-checked with Bumble's test vectors.
@Suite struct CryptoToolboxTests {
    @Test func aesCMACMatchesRFC4493() throws {
        let key = printed("2b7e1516 28aed2a6 abf71588 09cf4f3c")
        let m = printed("6bc1bee2 2e409f96 e93d7e11 7393172a ae2d8a57 1e03ac9c 9eb76fac 45af8e51"
            + "30c81c46 a35ce411 e5fbc119 1a0a52ef f69f2445 df4f9b17 ad2b417b e66c3710")
        #expect(try SMPCrypto.aesCMAC(key: key, message: []) == printed("bb1d6929 e9593728 7fa37d12 9b756746"))
        #expect(try SMPCrypto.aesCMAC(key: key, message: Array(m[0..<16])) == printed("070a16b4 6b4d4144 f79bdd9d d04a287c"))
        #expect(try SMPCrypto.aesCMAC(key: key, message: Array(m[0..<40])) == printed("dfa66747 de9ae630 30ca3261 1497c827"))
        #expect(try SMPCrypto.aesCMAC(key: key, message: m) == printed("51f0bebf 7e3b9d92 fc497417 79363cfe"))
    }

    @Test func aes128MatchesFIPS197() throws {
        // FIPS-197 Appendix C.1.
        let key = printed("000102030405060708090a0b0c0d0e0f")
        let plain = printed("00112233445566778899aabbccddeeff")
        #expect(try SMPCrypto.aes128(key: key, block: plain) == printed("69c4e0d86a7b0430d8cdb78070b4c55a"))
        // e() is the same cipher in SMP order.
        #expect(try SMPCrypto.e(key: key.reversed(), plaintext: plain.reversed()) == printed("69c4e0d86a7b0430d8cdb78070b4c55a").reversed())
    }

    @Test func f4SampleData() throws {
        let value = try SMPCrypto.f4(u: spec(Sample.publicAX),
                                     v: spec("55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd"),
                                     x: spec(Sample.n1), z: 0)
        #expect(value == spec("f2c916f1 07a9bd1c f1eda1be a974872d"))
    }

    @Test func f5SampleData() throws {
        let (macKey, ltk) = try SMPCrypto.f5(w: spec(Sample.dhKey), n1: spec(Sample.n1), n2: spec(Sample.n2),
                                             a1: spec(Sample.a1), a2: spec(Sample.a2))
        #expect(macKey == spec(Sample.macKey))
        #expect(ltk == spec(Sample.ltk))
    }

    @Test func f6SampleData() throws {
        let value = try SMPCrypto.f6(w: spec(Sample.macKey), n1: spec(Sample.n1), n2: spec(Sample.n2),
                                     r: spec("12a3343b b453bb54 08da42d2 0c2d0fc8"), ioCap: spec("010102"),
                                     a1: spec(Sample.a1), a2: spec(Sample.a2))
        #expect(value == spec("e3c47398 9cd0e8c5 d26c0b09 da958f61"))
    }

    @Test func g2SampleData() throws {
        let value = try SMPCrypto.g2(u: spec(Sample.publicAX),
                                     v: spec("55188b3d 32f6bb9a 900afcfb eed4e72a 59cb9ac2 f19d7cfb 6b4fdd49 f47fc5fd"),
                                     x: spec(Sample.n1), y: spec(Sample.n2))
        #expect(value == 0x2F9E_D5BA)
        #expect(value % 1_000_000 == 0x2F9E_D5BA % 1_000_000)
    }

    @Test func h6SampleData() throws {
        let value = try SMPCrypto.h6(w: spec("ec0234a3 57c8ad05 341010a6 0a397d9b"), keyID: 0x6C65_6272)
        #expect(value == spec("2d9ae102 e76dc91c e8d3a9e2 80b16399"))
    }

    @Test func h7SampleData() throws {
        let value = try SMPCrypto.h7(salt: spec("00000000 00000000 00000000 746D7031"),
                                     w: spec("ec0234a3 57c8ad05 341010a6 0a397d9b"))
        #expect(value == spec("fb173597 c6a3c0ec d2998c2a 75a57011"))
    }

    @Test func ahSampleData() throws {
        let value = try SMPCrypto.ah(k: spec("ec0234a3 57c8ad05 341010a6 0a397d9b"), r: spec("708194"))
        #expect(value == spec("0dfbaa"))
    }

    @Test func c1SampleData() throws {
        let value = try SMPCrypto.c1(k: [UInt8](repeating: 0, count: 16), r: spec("5783D52156AD6F0E6388274EC6702EE0"),
                                     preq: spec("07071000000101"), pres: spec("05000800000302"),
                                     iat: 1, rat: 0, ia: spec("A1A2A3A4A5A6"), ra: spec("B1B2B3B4B5B6"))
        #expect(value == spec("1e1e3fef878988ead2a74dc5bef13b86"))
    }

    @Test func s1SampleData() throws {
        let value = try SMPCrypto.s1(k: [UInt8](repeating: 0, count: 16), r1: spec("000F0E0D0C0B0A091122334455667788"),
                                     r2: spec("010203040506070899AABBCCDDEEFF00"))
        #expect(value == spec("9a1fe1f0e8b0f49b5b4216ae796da062"))
    }

    @Test func wrongInputLengthsThrowInsteadOfTrapping() {
        #expect(throws: CryptoError.badInputLength) { try SMPCrypto.f4(u: [], v: [], x: [], z: 0) }
        #expect(throws: CryptoError.badInputLength) { try SMPCrypto.ah(k: [1], r: [1, 2, 3]) }
        #expect(throws: CryptoError.badInputLength) { try SMPCrypto.aesCMAC(key: [1, 2], message: []) }
    }
}

@Suite struct P256Tests {
    @Test func sampleKeysGiveSampleDHKey() throws {
        let a = try P256KeyPair.fromPrivateKey(bigEndian: Sample.privateA)
        let b = try P256KeyPair.fromPrivateKey(bigEndian: Sample.privateB)
        #expect(a.publicKey == P256PublicKey(bigEndianX: printed(Sample.publicAX), y: printed(Sample.publicAY)))
        #expect(b.publicKey == P256PublicKey(bigEndianX: printed(Sample.publicBX), y: printed(Sample.publicBY)))
        #expect(try a.dhKey(with: b.publicKey) == spec(Sample.dhKey))
        #expect(try b.dhKey(with: a.publicKey) == spec(Sample.dhKey))
    }

    @Test func debugKeyIsSampleKeyA() throws {
        let a = try P256KeyPair.fromPrivateKey(bigEndian: Sample.privateA)
        #expect(a.publicKey == P256PublicKey.debugKey)
        #expect(P256PublicKey.debugKey.x == spec(Sample.publicAX))
    }

    @Test func generatedKeysAgree() throws {
        let a = try P256KeyPair.generate()
        let b = try P256KeyPair.generate()
        #expect(a.publicKey != b.publicKey)
        #expect(a.publicKey.isOnCurve && b.publicKey.isOnCurve)
        let shared = try a.dhKey(with: b.publicKey)
        #expect(shared.count == 32)
        #expect(shared == (try b.dhKey(with: a.publicKey)))
    }

    @Test func offCurveKeyIsRejected() throws {
        let a = try P256KeyPair.generate()
        // CVE-2018-5383: the attacker keeps X and zeroes Y.
        var bytes = P256KeyPair.debugKeyForTests.wireBytes
        for i in 32..<64 { bytes[i] = 0 }
        let forged = try #require(P256PublicKey(wireBytes: bytes))
        #expect(!forged.isOnCurve)
        #expect(throws: CryptoError.publicKeyNotOnCurve) { try a.dhKey(with: forged) }
        // A coordinate at or above the field prime is not a point either.
        let huge = try #require(P256PublicKey(wireBytes: [UInt8](repeating: 0xFF, count: 64)))
        #expect(!huge.isOnCurve)
        #expect(throws: CryptoError.publicKeyNotOnCurve) { try a.dhKey(with: huge) }
        let zero = try #require(P256PublicKey(wireBytes: [UInt8](repeating: 0, count: 64)))
        #expect(throws: CryptoError.publicKeyNotOnCurve) { try a.dhKey(with: zero) }
    }
}

extension P256KeyPair {
    static var debugKeyForTests: P256PublicKey { P256PublicKey.debugKey }
}
