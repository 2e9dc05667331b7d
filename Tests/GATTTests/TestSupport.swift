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

/// A bearer with a clock, and helpers that speak hex. It drains the
/// bearer's events as its owner would: completions by request id (each
/// must come exactly once), values received, and the rest in order.
final class Harness {
    let bearer: GATTBearer
    var now = Instant(milliseconds: 1_000)
    /// A binding on this bearer sees each completion first, as its owner
    /// would hand it, and names the values it subscribed to.
    var binding: GATTServiceBinding?
    private(set) var completions: [GATTRequestID: [GATTClientResult]] = [:]
    /// Completions nobody else took, in the order they came.
    private(set) var completed: [(GATTRequestID, GATTClientResult)] = []
    private var valuesReceived: [(AttributeHandle, [UInt8], Bool)] = []
    /// Values the binding named, with their characteristic.
    private(set) var namedValues: [(BluetoothUUID, [UInt8])] = []
    private var otherEvents: [GATTBearerEvent] = []
    /// Every event, in the order the bearer gave them.
    private(set) var log: [GATTBearerEvent] = []

    init(database: GATTDatabase = GATTDatabase(deviceName: "Head Unit", aesCMAC: aesCMAC)) {
        bearer = GATTBearer(handle: ConnectionHandle(0x40), database: database)
    }

    /// Everything the bearer wants to send, as hex strings (after the
    /// events, which may queue requests, were handled).
    func sent() -> [String] {
        drain()
        var out: [String] = []
        while let pdu = bearer.pollTransmit(now: now) { out.append(hexString(pdu)) }
        return out
    }

    func deliver(_ text: String) {
        bearer.receive(bytes(text))
        drain()
    }

    /// Delivers a request and returns the single answer (or nil).
    func ask(_ text: String) -> String? {
        deliver(text)
        let answers = sent()
        return answers.first
    }

    /// Takes every event the bearer has, as its owner does after each input.
    func drain() {
        while let e = bearer.pollEvent() {
            log.append(e)
            switch e {
            case let .completed(id, result):
                if binding?.handle(id, result) == true { continue }
                completions[id, default: []].append(result)
                completed.append((id, result))
            case let .valueReceived(handle, value, isIndication):
                valuesReceived.append((handle, value, isIndication))
                if let uuid = binding?.characteristic(notifiedAt: handle) { namedValues.append((uuid, value)) }
            default:
                otherEvents.append(e)
            }
        }
    }

    /// The events that are neither completions nor values, since last asked.
    func events() -> [GATTBearerEvent] {
        drain()
        defer { otherEvents = [] }
        return otherEvents
    }

    /// The values notified (or indicated) at `handle`.
    func values(at handle: AttributeHandle) -> [[UInt8]] {
        drain()
        return valuesReceived.filter { $0.0 == handle }.map { $0.1 }
    }

    /// Every value received, with its handle and whether it was indicated.
    var allValues: [(AttributeHandle, [UInt8], Bool)] {
        drain()
        return valuesReceived
    }

    func track(_ id: GATTRequestID) -> Box { Box(self, id) }
}

/// One request's completion as the harness saw it.
final class Box {
    let harness: Harness
    let id: GATTRequestID

    init(_ harness: Harness, _ id: GATTRequestID) {
        self.harness = harness
        self.id = id
    }

    var result: GATTClientResult? {
        harness.drain()
        return harness.completions[id]?.first
    }
    var calls: Int {
        harness.drain()
        return harness.completions[id]?.count ?? 0
    }
    var error: GATTError? { result?.error }
    var mtu: Int? { if case .mtu(let v)? = result { return v }; return nil }
    var services: [GATTService]? { if case .services(let v)? = result { return v }; return nil }
    var characteristics: [GATTCharacteristic]? { if case .characteristics(let v)? = result { return v }; return nil }
    var descriptors: [GATTDescriptor]? { if case .descriptors(let v)? = result { return v }; return nil }
    var value: [UInt8]? { if case .value(let v)? = result { return v }; return nil }
    var succeeded: Bool { result != nil && error == nil }
}

/// Hex written with spaces for reading, in the form `Harness.sent()` gives.
func h(_ text: String) -> String { hexString(bytes(text)) }
