import HPKE
import Testing

/// X-Wing against the draft's published vectors (Vectors/xwing.txt).
struct XWingTests {
    @Test func publicKeyFromSeedMatchesDraft() throws {
        let file = try VectorFile("xwing.txt")
        #expect(file.cases.count == 3)
        for vector in file.cases {
            let key = try XWingPrivateKey(seed: vector.bytes("seed"))
            #expect(hexString(key.publicKey) == hexString(vector.bytes("pk")))
        }
    }

    @Test func encapsulationMatchesDraft() throws {
        for vector in try VectorFile("xwing.txt").cases {
            let (ss, enc) = try XWing.encapsulate(publicKey: vector.bytes("pk"), eseed: vector.bytes("eseed"))
            #expect(hexString(enc) == hexString(vector.bytes("ct")))
            #expect(hexString(ss) == hexString(vector.bytes("ss")))
        }
    }

    @Test func decapsulationMatchesDraft() throws {
        for vector in try VectorFile("xwing.txt").cases {
            let key = try XWingPrivateKey(seed: vector.bytes("seed"), publicKey: vector.bytes("pk"))
            let ss = try key.decapsulate(vector.bytes("ct"))
            #expect(ss.count == 32)
            #expect(hexString(ss) == hexString(vector.bytes("ss")))
        }
    }

    @Test func publicKeyOfAnotherSeedIsRefused() throws {
        let vectors = try VectorFile("xwing.txt").cases
        #expect(throws: HPKEError.publicKeyMismatch) {
            try XWingPrivateKey(seed: vectors[0].bytes("seed"), publicKey: vectors[1].bytes("pk"))
        }
    }

    /// A flipped bit in ct_M is implicitly rejected (another secret, no
    /// error); one in ct_X changes the X25519 half. Neither gives ss.
    @Test func alteredEncapsulatedKeyGivesAnotherSecret() throws {
        let vector = try VectorFile("xwing.txt").cases[0]
        let key = try XWingPrivateKey(seed: vector.bytes("seed"))
        for position in [0, 500, 1087, 1088, 1119] {
            var enc = vector.bytes("ct")
            enc[position] ^= 0x01
            let ss = try key.decapsulate(enc)
            #expect(ss.count == 32)
            #expect(ss != vector.bytes("ss"), "bit flipped at \(position)")
        }
    }

    @Test func wrongSizesAreRefused() throws {
        #expect(throws: HPKEError.invalidLength) { try XWingPrivateKey(seed: [UInt8](repeating: 7, count: 31)) }
        let key = try XWingPrivateKey(seed: [UInt8](repeating: 7, count: 32))
        #expect(key.publicKey.count == 1216)
        for count in [0, 32, 1088, 1119, 1121] {
            #expect(throws: HPKEError.invalidLength) { try key.decapsulate([UInt8](repeating: 1, count: count)) }
        }
    }
}
