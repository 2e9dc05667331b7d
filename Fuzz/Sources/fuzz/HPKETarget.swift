import HPKE

/// NotifBridge cryptography fed what the air delivers: an encapsulated key
/// of any length and content for a fixed X-Wing key, a sealed blob for a
/// fixed AES-256-GCM key, a seed and public key of any length, and an
/// exporter secret with any context. The first byte picks which.
enum HPKETarget {
    static let target = FuzzTarget(name: "hpke", run: run, seeds: seeds)

    /// The receiver's key and what an honest phone sent to it.
    struct Fixture {
        let key: XWingPrivateKey
        let encapsulatedKey: [UInt8]
        let sharedSecret: [UInt8]
        let blobKey = [UInt8](repeating: 0x5A, count: 32)
        let blob: [UInt8]
        let plaintext = Array("{\"version\":3,\"kind\":\"add\"}".utf8)

        init() {
            do throws(HPKEError) {
                key = try XWingPrivateKey(seed: [UInt8](repeating: 0x42, count: 32))
                (sharedSecret, encapsulatedKey) = try XWing.encapsulate(publicKey: key.publicKey, eseed: [UInt8](repeating: 0x17, count: 64))
                blob = try AES256GCM.seal(key: blobKey, nonce: [UInt8](repeating: 0x01, count: 12), plaintext: plaintext)
            } catch {
                fatalError("hpke fuzz fixture: \(error)")
            }
        }
    }

    nonisolated(unsafe) static var fixture: Fixture?

    static func run(_ data: [UInt8]) {
        if fixture == nil { fixture = Fixture() }
        let f = fixture!
        var input = FuzzInput(data)
        switch input.byte() % 4 {
        case 0:
            let encapsulatedKey = input.rest()
            do throws(HPKEError) {
                let secret = try f.key.decapsulate(encapsulatedKey)
                invariant(encapsulatedKey.count == XWing.encapsulatedKeyCount, "decapsulated \(encapsulatedKey.count) bytes")
                invariant(secret.count == 32, "a shared secret of \(secret.count) bytes")
                invariant((secret == f.sharedSecret) == (encapsulatedKey == f.encapsulatedKey),
                          "another encapsulated key gave the honest secret, or the honest one did not")
                invariant((try? f.key.decapsulate(encapsulatedKey)) == secret, "decapsulation is not deterministic")
            } catch {
                invariant(error == .invalidLength ? encapsulatedKey.count != XWing.encapsulatedKeyCount : error == .authenticationFailed,
                          "decapsulation failed with \(error) on \(encapsulatedKey.count) bytes")
            }
        case 1:
            let sealed = input.rest()
            do throws(HPKEError) {
                let opened = try AES256GCM.open(key: f.blobKey, sealed: sealed)
                invariant(sealed == f.blob && opened == f.plaintext, "a forged blob opened")
            } catch {
                invariant(error == (sealed.count < 28 ? .invalidLength : .authenticationFailed), "open failed with \(error)")
            }
        case 2:
            let seed = input.chunk()
            let publicKey = input.rest()
            do throws(HPKEError) {
                let key = try XWingPrivateKey(seed: seed, publicKey: publicKey)
                invariant(seed.count == 32 && key.publicKey == publicKey, "a key that does not match was accepted")
            } catch {
                invariant(error == (seed.count == 32 ? .publicKeyMismatch : .invalidLength), "key from seed failed with \(error)")
            }
        default:
            let secret = input.chunk()
            let length = Int(input.byte() % 65)
            let context = input.rest()
            let exported = HPKEExporter(exporterSecret: secret).export(context: context, length: length)
            invariant(exported.count == length, "exported \(exported.count) bytes, asked for \(length)")
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        let f = Fixture()
        return [
            ("honest-encapsulated-key", [0] + f.encapsulatedKey),
            ("altered-encapsulated-key", [0] + f.encapsulatedKey.enumerated().map { $0.offset == 100 ? $0.element ^ 1 : $0.element }),
            ("short-encapsulated-key", [0] + Array(f.encapsulatedKey.prefix(1088))),
            ("honest-blob", [1] + f.blob),
            ("tag-only-blob", [1] + Array(f.blob.prefix(28))),
            ("seed-and-public-key", [2, 32] + [UInt8](repeating: 0x42, count: 32) + f.key.publicKey),
            ("export", [3, 32] + [UInt8](repeating: 9, count: 32) + [32] + Array("XWing-Version1-A-HostToAccessory-B".utf8)),
        ]
    }
}
