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
