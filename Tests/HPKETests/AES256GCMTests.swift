import HPKE
import Testing

/// AES-256-GCM over NotifBridge blobs: round trip and refusal of anything altered.
struct AES256GCMTests {
    let key = [UInt8](repeating: 0x11, count: 32)
    let nonce: [UInt8] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
    let plaintext = Array("{\"version\":3,\"kind\":\"add\"}".utf8)

    @Test func sealedBlobHasNonceCiphertextAndTag() throws {
        let sealed = try AES256GCM.seal(key: key, nonce: nonce, plaintext: plaintext)
        #expect(sealed.count == 12 + plaintext.count + 16)
        #expect(Array(sealed[0..<12]) == nonce)
        #expect(Array(sealed[12..<(12 + plaintext.count)]) != plaintext)
        #expect(try AES256GCM.open(key: key, sealed: sealed) == plaintext)
    }

    /// Test Case 16 of McGrew and Viega's GCM specification: AES-256 with
    /// additional data (GhostDrop authenticates its sequence number this way).
    @Test func additionalDataMatchesTheGCMSpecificationVector() throws {
        let key = hexBytes("feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308")
        let iv = hexBytes("cafebabefacedbaddecaf888")
        let plaintext = hexBytes("d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a721c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39")
        let aad = hexBytes("feedfacedeadbeeffeedfacedeadbeefabaddad2")
        let expected = iv + hexBytes("522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662")
            + hexBytes("76fc6ece0f4e1768cddf8853bb2d551b")
        let sealed = try AES256GCM.seal(key: key, nonce: iv, plaintext: plaintext, additionalData: aad)
        #expect(sealed == expected)
        #expect(try AES256GCM.open(key: key, sealed: sealed, additionalData: aad) == plaintext)
        #expect(throws: HPKEError.authenticationFailed) { try AES256GCM.open(key: key, sealed: sealed) }
        #expect(throws: HPKEError.authenticationFailed) { try AES256GCM.open(key: key, sealed: sealed, additionalData: aad.dropLast() + [0]) }
    }

    @Test func everyAlteredByteIsRefused() throws {
        let sealed = try AES256GCM.seal(key: key, nonce: nonce, plaintext: plaintext)
        for position in 0..<sealed.count {
            var tampered = sealed
            tampered[position] ^= 0x80
            #expect(throws: HPKEError.authenticationFailed) { try AES256GCM.open(key: key, sealed: tampered) }
        }
        var otherKey = key
        otherKey[31] ^= 1
        #expect(throws: HPKEError.authenticationFailed) { try AES256GCM.open(key: otherKey, sealed: sealed) }
        #expect(throws: HPKEError.authenticationFailed) { try AES256GCM.open(key: key, sealed: Array(sealed.dropLast())) }
    }

    @Test func emptyPlaintextRoundTrips() throws {
        let sealed = try AES256GCM.seal(key: key, nonce: nonce, plaintext: [])
        #expect(sealed.count == 28)
        #expect(try AES256GCM.open(key: key, sealed: sealed) == [])
    }

    @Test func wrongSizesAreRefused() {
        #expect(throws: HPKEError.invalidLength) { try AES256GCM.open(key: key, sealed: [UInt8](repeating: 0, count: 27)) }
        #expect(throws: HPKEError.invalidLength) { try AES256GCM.open(key: Array(key.dropLast()), sealed: [UInt8](repeating: 0, count: 40)) }
        #expect(throws: HPKEError.invalidLength) { try AES256GCM.seal(key: key, nonce: [1, 2, 3], plaintext: plaintext) }
    }

    @Test func sha256AndRandomBytes() {
        // FIPS 180-2 example: SHA-256("abc").
        #expect(hexString(sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(randomBytes(12).count == 12)
        #expect(randomBytes(32) != randomBytes(32))
    }
}
