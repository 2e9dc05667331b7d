import BluetoothCore
import HPKE
import JSON
@testable import NotifBridge

/// A stand-in for X-Wing, HPKE and AES-GCM: not what these tests test, but
/// it really round-trips and detects tampering (a SHA-256 keystream and a
/// SHA-256 tag), and it refuses a seed that does not give the public key.
enum TestCryptography: NotifBridgeCryptography {
    nonisolated(unsafe) static var counter: UInt64 = 0

    /// The "public key" a seed gives: 1216 bytes expanded from it.
    static func publicKey(seed: [UInt8]) -> [UInt8] { expand(seed + Array("pk".utf8), count: PreparedKey.publicKeyLength) }

    static func exporterSecret(seed: [UInt8], publicKey: [UInt8], encapsulatedKey: [UInt8], info: [UInt8]) -> [UInt8]? {
        guard publicKey == self.publicKey(seed: seed) else { return nil }
        return sha256(seed + encapsulatedKey + info)
    }

    static func export(exporterSecret: [UInt8], context: [UInt8]) -> [UInt8] { sha256(exporterSecret + context) }

    static func open(key: [UInt8], sealed: [UInt8]) -> [UInt8]? {
        guard sealed.count >= 28 else { return nil }
        let nonce = Array(sealed[0..<12])
        let body = Array(sealed[12..<(sealed.count - 16)])
        guard Array(sha256(key + nonce + body).prefix(16)) == Array(sealed.suffix(16)) else { return nil }
        return zip(body, expand(key + nonce, count: body.count)).map { $0 ^ $1 }
    }

    static func seal(key: [UInt8], plaintext: [UInt8]) -> [UInt8] {
        seal(key: key, nonce: randomBytes(12), plaintext: plaintext)
    }

    static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8]) -> [UInt8] {
        let body = zip(plaintext, expand(key + nonce, count: plaintext.count)).map { $0 ^ $1 }
        return nonce + body + sha256(key + nonce + body).prefix(16)
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] { HPKE.sha256(bytes) }

    static func randomBytes(_ count: Int) -> [UInt8] {
        counter += 1
        var c = counter
        return expand(withUnsafeBytes(of: &c) { Array($0) }, count: count)
    }

    static func expand(_ seed: [UInt8], count: Int) -> [UInt8] {
        var out: [UInt8] = []
        var block: UInt8 = 0
        while out.count < count {
            out += sha256(seed + [block])
            block &+= 1
        }
        return Array(out.prefix(count))
    }
}

typealias Receiver = NotifBridgeReceiver<TestCryptography>

/// The phone's side of the protocol, for the tests: builds key packets and
/// sealed envelopes the way the NotifBridge app does.
struct TestPhone {
    let ciphersuite = "XWing"
    let version = "Version1"
    let identifier = "9A4C1E2B-0000-4000-8000-0000000000AA"
    var session = "5D1F0C3A-1111-4222-8333-444455556666"

    static func uuid(_ n: Int) -> String {
        "00000000-0000-4000-8000-" + hex(UInt64(n), digits: 12).uppercased()
    }

    static func seed(_ n: Int) -> [UInt8] { [UInt8](repeating: UInt8(n), count: 32) }

    func prepare(exchange: Int, receipt: Int, seed n: Int? = nil) -> [UInt8] {
        let seed = TestPhone.seed(n ?? exchange)
        return JSONValue.object([
            JSONMember("phase", .string("prepare")),
            JSONMember("exchangeID", .string(TestPhone.uuid(exchange))),
            JSONMember("receiptID", .string(TestPhone.uuid(receipt))),
            JSONMember("publicKey", .string(Base64.encode(TestCryptography.publicKey(seed: seed)))),
            JSONMember("privateKeySeed", .string(Base64.encode(seed))),
        ]).encoded
    }

    func encapsulatedKey(_ exchange: Int) -> [UInt8] { TestCryptography.expand([UInt8(exchange), 0xEC], count: 1120) }

    func activate(exchange: Int, receipt: Int) -> [UInt8] {
        JSONValue.object([
            JSONMember("phase", .string("activate")),
            JSONMember("exchangeID", .string(TestPhone.uuid(exchange))),
            JSONMember("receiptID", .string(TestPhone.uuid(receipt))),
            JSONMember("encapsulatedKey", .string(Base64.encode(encapsulatedKey(exchange)))),
            JSONMember("identifier", .string(identifier)),
            JSONMember("ciphersuite", .string(ciphersuite)),
            JSONMember("version", .string(version)),
        ]).encoded
    }

    /// The older single-shot packet, with the key pair and encapsulation of `exchange`.
    func legacy(exchange: Int, receipt: Int?) -> [UInt8] {
        let seed = TestPhone.seed(exchange)
        var members = [
            JSONMember("identifier", .string(identifier)), JSONMember("ciphersuite", .string(ciphersuite)),
            JSONMember("version", .string(version)),
            JSONMember("encapsulatedKey", .string(Base64.encode(encapsulatedKey(exchange)))),
            JSONMember("publicKey", .string(Base64.encode(TestCryptography.publicKey(seed: seed)))),
            JSONMember("privateKeySeed", .string(Base64.encode(seed))),
        ]
        if let receipt { members.append(JSONMember("receiptID", .string(TestPhone.uuid(receipt)))) }
        return JSONValue.object(members).encoded
    }

    var info: [UInt8] { Array((ciphersuite + "-" + version + "-" + identifier).utf8) }

    /// The exporter secret the head unit should end with for `exchange`.
    func exporterSecret(_ exchange: Int) -> [UInt8] {
        let seed = TestPhone.seed(exchange)
        return TestCryptography.exporterSecret(seed: seed, publicKey: TestCryptography.publicKey(seed: seed),
                                               encapsulatedKey: encapsulatedKey(exchange), info: info)!
    }

    func key(_ exchange: Int, direction: String = "-HostToAccessory-") -> [UInt8] {
        TestCryptography.export(exporterSecret: exporterSecret(exchange), context: info + Array((direction + session).utf8))
    }

    static func event(_ kind: String, id: Int, sentAt: Double, app: String = "com.google.Maps", notification n: Int = 1,
                      title: String = "Turn left", body: String = "onto Main St") -> [UInt8] {
        var members = [JSONMember("version", .number(JSONNumber(3))), JSONMember("id", .string(uuid(1000 + id))),
                       JSONMember("kind", .string(kind)), JSONMember("sentAt", .number(JSONNumberText.of(sentAt)))]
        let identity = [JSONMember("sourceIdentifier", .string(app)), JSONMember("notificationIdentifier", .string("n\(n)"))]
        if kind == "add" || kind == "update" {
            members.append(JSONMember("notification", .object(identity + [
                JSONMember("title", .string(title)), JSONMember("body", .string(body)),
                JSONMember("sourceName", .string("Maps")), JSONMember("shouldAlert", .bool(true)),
                JSONMember("attributes", .number(JSONNumber(2))),
                JSONMember("sourceIcon", .string(Base64.encode([1, 2, 3]))),
                JSONMember("unknownFutureField", .array([.null])),
            ])))
        }
        if kind == "remove" { members.append(JSONMember("identity", .object(identity))) }
        return JSONValue.object(members).encoded
    }

    /// An envelope sealed with `exchange`'s key; `nonce` fixes the bytes (resends are identical).
    func envelope(_ plaintext: [UInt8], exchange: Int, receipt: Int?, nonce: UInt8 = 7) -> [UInt8] {
        let sealed = TestCryptography.seal(key: key(exchange), nonce: [UInt8](repeating: nonce, count: 12), plaintext: plaintext)
        return NotificationEnvelope(sessionID: SessionID(uuidFromText(session)!), sealed: sealed,
                                    receiptID: receipt.map { ReceiptID(uuidFromText(TestPhone.uuid($0))!) }).encoded
    }

    /// A frame as values of `size` bytes, START and END around.
    static func values(_ frame: [UInt8], size: Int = 200) -> [[UInt8]] { frameValues(frame, maxValue: size) }

    /// NBW1-wrapped values, with chunk ids from `firstChunk` on.
    static func wrapped(_ frame: [UInt8], firstChunk: Int) -> [[UInt8]] {
        values(frame).enumerated().map { chunkID(firstChunk + $0.offset) + $0.element }
    }

    static func chunkID(_ n: Int) -> [UInt8] { Array("NBW1".utf8) + [UInt8](repeating: 0xC0, count: 14) + [UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)] }
}

/// A Double as JSON number text.
enum JSONNumberText {
    static func of(_ value: Double) -> JSONNumber {
        // Whole seconds plus milliseconds are enough for the tests.
        let millis = Int((value * 1000).rounded())
        let text = "\(millis / 1000)." + String(String(1000 + millis % 1000).dropFirst())
        return (try? JSONParser.parse(Array(text.utf8))).flatMap { if case .number(let n) = $0 { return n } else { return nil } }!
    }
}
