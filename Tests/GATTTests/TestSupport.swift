import BluetoothCore
import CCrypto
import Glibc
@testable import ATT
@testable import GATT

func bytes(_ text: String) -> [UInt8] { bytesFromHex(text)! }

let nnService = BluetoothUUID("AB312B45-A8A1-4BCE-97E7-7D3D97FB541E")!
let serverNameUUID = BluetoothUUID("0168FE9F-4277-4AE7-AC4A-3051F3A0C106")!
let pairedClientNameUUID = BluetoothUUID("4C234FB3-71AB-4855-92D4-EC58BF163290")!

func le(_ uuid: BluetoothUUID) -> String { hexString(uuid.fullLittleEndian) }

/// AES-CMAC from OpenSSL, as the Security Manager provides it to the database.
func aesCMAC(_ key: [UInt8], _ message: [UInt8]) -> [UInt8] {
    guard let mac = EVP_MAC_fetch(nil, "CMAC", nil) else { return [] }
    defer { EVP_MAC_free(mac) }
    guard let context = EVP_MAC_CTX_new(mac) else { return [] }
    defer { EVP_MAC_CTX_free(context) }
    let name = strdup("cipher")!
    let cipher = strdup("AES-128-CBC")!
    defer { free(name); free(cipher) }
    var params = [OSSL_PARAM_construct_utf8_string(name, cipher, 0), OSSL_PARAM_construct_end()]
    guard EVP_MAC_init(context, key, key.count, &params) == 1,
          EVP_MAC_update(context, message, message.count) == 1 else { return [] }
    var out = [UInt8](repeating: 0, count: 16)
    var length = 0
    guard EVP_MAC_final(context, &out, &length, 16) == 1 else { return [] }
    return out
}

/// A bearer with a clock, and helpers that speak hex.
final class Harness {
    let bearer: GATTBearer
    var now = Instant(milliseconds: 1_000)

    init(database: GATTDatabase = GATTDatabase(deviceName: "Head Unit", aesCMAC: aesCMAC)) {
        bearer = GATTBearer(handle: ConnectionHandle(0x40), database: database)
    }

    /// Everything the bearer wants to send, as hex strings.
    func sent() -> [String] {
        var out: [String] = []
        while let pdu = bearer.pollTransmit(now: now) { out.append(hexString(pdu)) }
        return out
    }

    func deliver(_ text: String) { bearer.receive(bytes(text)) }

    /// Delivers a request and returns the single answer (or nil).
    func ask(_ text: String) -> String? {
        deliver(text)
        let answers = sent()
        return answers.first
    }

    func events() -> [GATTBearerEvent] {
        var out: [GATTBearerEvent] = []
        while let e = bearer.pollEvent() { out.append(e) }
        return out
    }
}

/// Stores a completion's result for inspection.
final class Box<T> {
    var result: Result<T, GATTError>?
    var calls = 0
    var completion: GATTCompletion<T> {
        { self.result = $0; self.calls += 1 }
    }
    var value: T? { if case .success(let v)? = result { return v }; return nil }
    var error: GATTError? { if case .failure(let e)? = result { return e }; return nil }
}

/// Hex written with spaces for reading, in the form `Harness.sent()` gives.
func h(_ text: String) -> String { hexString(bytes(text)) }
