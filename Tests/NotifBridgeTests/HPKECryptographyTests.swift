import XCTest
import HPKE
@testable import NotifBridge

/// The receiver's real cryptography against the HPKE module as a phone would
/// use it: encapsulate to the prepared public key, export the per-session key,
/// seal; the receiver's side must reach the same key and open the blob.
final class HPKECryptographyTests: XCTestCase {
    private let info = Array("XWing-Version1-headunit".utf8)
    private let context = Array("XWing-Version1-headunit-HostToAccessory-6F1C2A4E-0000-4000-8000-000000000001".utf8)

    func testAPhoneSealedEnvelopeOpensWithThePreparedKey() throws {
        let seed = HPKE.randomBytes(32)
        let publicKey = try XWingPrivateKey(seed: seed).publicKey
        let (sharedSecret, encapsulatedKey) = try XWing.encapsulate(publicKey: publicKey, eseed: HPKE.randomBytes(64))
        let phoneKey = HPKEExporter(sharedSecret: sharedSecret, info: info).export(context: context, length: 32)
        let sealed = try AES256GCM.seal(key: phoneKey, nonce: HPKE.randomBytes(12), plaintext: Array("{\"version\":3}".utf8))

        let exporter = try XCTUnwrap(HPKECryptography.exporterSecret(seed: seed, publicKey: publicKey,
                                                                   encapsulatedKey: encapsulatedKey, info: info))
        let key = HPKECryptography.export(exporterSecret: exporter, context: context)
        XCTAssertEqual(key, phoneKey)
        XCTAssertEqual(HPKECryptography.open(key: key, sealed: sealed), Array("{\"version\":3}".utf8))

        var tampered = sealed
        tampered[20] ^= 1
        XCTAssertNil(HPKECryptography.open(key: key, sealed: tampered))
        let nonce = HPKE.randomBytes(12)
        let reverse = HPKECryptography.seal(key: key, nonce: nonce, plaintext: [1, 2, 3])
        XCTAssertEqual(reverse.count, 12 + 3 + 16)
        XCTAssertEqual(Array(reverse.prefix(12)), nonce)
        XCTAssertEqual(HPKECryptography.open(key: key, sealed: reverse), [1, 2, 3])
    }

    func testASeedThatDoesNotGiveThePublicKeyIsRefused() throws {
        let publicKey = try XWingPrivateKey(seed: HPKE.randomBytes(32)).publicKey
        let (_, encapsulatedKey) = try XWing.encapsulate(publicKey: publicKey, eseed: HPKE.randomBytes(64))
        XCTAssertNil(HPKECryptography.exporterSecret(seed: HPKE.randomBytes(32), publicKey: publicKey,
                                                     encapsulatedKey: encapsulatedKey, info: info))
        XCTAssertNil(HPKECryptography.exporterSecret(seed: HPKE.randomBytes(32), publicKey: publicKey,
                                                     encapsulatedKey: Array(encapsulatedKey.prefix(100)), info: info))
    }
}
