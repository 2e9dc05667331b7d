import Foundation
import HPKE
import Testing

/// The simulated phone's independent X-Wing/HPKE (Tests/Phone/phone/notifbridge/xwing.py,
/// kyber-py and `cryptography`) makes fresh random keys and envelopes on
/// every run; the head unit's code must reach the same secret, the same
/// exported key and the same plaintext.
struct CrossImplementationTests {
    @Test func phoneCasesDecryptOnTheHeadUnit() throws {
        let cases = try phoneCases(count: 6)
        #expect(cases.count == 6)
        for phone in cases {
            let key = try XWingPrivateKey(seed: phone.bytes("seed"), publicKey: phone.bytes("publicKey"))
            let sharedSecret = try key.decapsulate(phone.bytes("encapsulatedKey"))
            #expect(hexString(sharedSecret) == phone["sharedSecret"])
            let exporter = HPKEExporter(sharedSecret: sharedSecret, info: phone.bytes("info"))
            #expect(hexString(exporter.exporterSecret) == phone["exporterSecret"])
            let aesKey = exporter.export(context: phone.bytes("context"), length: 32)
            #expect(hexString(aesKey) == phone["exportedKey"])
            #expect(hexString(try AES256GCM.open(key: aesKey, sealed: phone.bytes("sealed"))) == phone["plaintext"])
        }
    }

    /// The reverse direction: a blob the head unit seals under an exported
    /// key, the phone's AES-GCM opens.
    @Test func headUnitBlobOpensOnThePhone() throws {
        let phone = try #require(try phoneCases(count: 1).first)
        let key = try XWingPrivateKey(seed: phone.bytes("seed"))
        let exporter = HPKEExporter(sharedSecret: try key.decapsulate(phone.bytes("encapsulatedKey")), info: phone.bytes("info"))
        let aesKey = exporter.export(context: Array("XWing-Version1-X-AccessoryToHost-1".utf8), length: 32)
        let plaintext = Array("{\"version\":3,\"kind\":\"displayed\"}".utf8)
        let sealed = try AES256GCM.seal(key: aesKey, nonce: randomBytes(12), plaintext: plaintext)
        let opened = try runPhone(["open", hexString(aesKey), hexString(sealed)])
        #expect(opened.trimmingCharacters(in: .whitespacesAndNewlines) == hexString(plaintext))
    }

    /// JSON lines from `python -m phone.notifbridge.xwing cases N`, hex values.
    private func phoneCases(count: Int) throws -> [[String: String]] {
        try runPhone(["cases", String(count)]).split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String] else {
                throw PhoneSideUnavailable(description: "not a case: \(line.prefix(80))")
            }
            return object
        }
    }

    /// stdout of `python -m phone.notifbridge.xwing ARGUMENTS` in Tests/Phone.
    private func runPhone(_ arguments: [String]) throws -> String {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let python = root.appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw PhoneSideUnavailable(description: "no \(python.path): run scripts/setup")
        }
        let process = Process()
        process.executableURL = python
        process.arguments = ["-m", "phone.notifbridge.xwing"] + arguments
        process.currentDirectoryURL = root.appendingPathComponent("Tests/Phone")
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw PhoneSideUnavailable(description: "phone.notifbridge.xwing \(arguments.first ?? "") exited with \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

private struct PhoneSideUnavailable: Error, CustomStringConvertible {
    let description: String
}
