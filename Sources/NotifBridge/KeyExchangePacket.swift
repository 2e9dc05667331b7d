import BluetoothCore
import JSON

/// The X-Wing key pair the phone generated: its 32-byte seed and the
/// 1216-byte public key the seed must reproduce.
public struct PreparedKey: Equatable {
    public static let seedLength = 32
    public static let publicKeyLength = 1216

    public let exchangeID: ExchangeID
    public let seed: [UInt8]
    public let publicKey: [UInt8]

    public init(exchangeID: ExchangeID, seed: [UInt8], publicKey: [UInt8]) {
        self.exchangeID = exchangeID
        self.seed = seed
        self.publicKey = publicKey
    }
}

/// What iOS encapsulated to a prepared key, and the strings of the HPKE `info`.
public struct Activation: Equatable {
    public static let encapsulatedKeyLength = 1120

    public let exchangeID: ExchangeID
    public let encapsulatedKey: [UInt8]
    public let identifier: String
    public let ciphersuite: String
    public let version: String

    public init(exchangeID: ExchangeID, encapsulatedKey: [UInt8], identifier: String, ciphersuite: String, version: String) {
        self.exchangeID = exchangeID
        self.encapsulatedKey = encapsulatedKey
        self.identifier = identifier
        self.ciphersuite = ciphersuite
        self.version = version
    }

    /// HPKE `info`: "<ciphersuite>-<version>-<identifier>", the strings as received.
    public var info: [UInt8] { Array((ciphersuite + "-" + version + "-" + identifier).utf8) }
}

/// One frame on the key-exchange characteristic.
public enum KeyExchangePacket: Equatable {
    case prepare(PreparedKey, receipt: ReceiptID)
    case activate(Activation, receipt: ReceiptID)
    /// The older single-shot form: key pair and encapsulation together.
    /// It has no exchangeID of its own: the first 16 bytes of the public key
    /// stand in for one, so the same packet again is the same exchange and
    /// a new key pair a new one (a rotation, with the old key's grace).
    case legacy(PreparedKey, Activation, receipt: ReceiptID?)

    public static func parse(_ frame: [UInt8]) throws(JSONError) -> KeyExchangePacket {
        let json = try JSONParser.parse(frame)
        guard json.isObject else { throw .wrongType(key: "(packet)", expected: .object, found: json.type) }
        switch try json.optionalString("phase") {
        case "prepare"?:
            let exchange = ExchangeID(try json.uuid("exchangeID"))
            return .prepare(try preparedKey(json, exchange), receipt: ReceiptID(try json.uuid("receiptID")))
        case "activate"?:
            let exchange = ExchangeID(try json.uuid("exchangeID"))
            return .activate(try activation(json, exchange), receipt: ReceiptID(try json.uuid("receiptID")))
        case nil:
            let receipt = try json.optionalUUID("receiptID").map(ReceiptID.init)
            let publicKey = try json.base64("publicKey")
            guard publicKey.count == PreparedKey.publicKeyLength else {
                throw .invalidValue(key: "publicKey", reason: "has \(publicKey.count) bytes, not \(PreparedKey.publicKeyLength)")
            }
            let exchange = ExchangeID(BluetoothUUID(bigEndian: publicKey[0..<16]))
            return .legacy(try preparedKey(json, exchange), try activation(json, exchange), receipt: receipt)
        case let other?:
            throw .invalidValue(key: "phase", reason: "is \"\(other)\", not prepare or activate")
        }
    }

    private static func preparedKey(_ json: JSONValue, _ exchange: ExchangeID) throws(JSONError) -> PreparedKey {
        let seed = try json.base64("privateKeySeed")
        guard seed.count == PreparedKey.seedLength else {
            throw .invalidValue(key: "privateKeySeed", reason: "has \(seed.count) bytes, not \(PreparedKey.seedLength)")
        }
        let publicKey = try json.base64("publicKey")
        guard publicKey.count == PreparedKey.publicKeyLength else {
            throw .invalidValue(key: "publicKey", reason: "has \(publicKey.count) bytes, not \(PreparedKey.publicKeyLength)")
        }
        return PreparedKey(exchangeID: exchange, seed: seed, publicKey: publicKey)
    }

    private static func activation(_ json: JSONValue, _ exchange: ExchangeID) throws(JSONError) -> Activation {
        let encapsulated = try json.base64("encapsulatedKey")
        guard encapsulated.count == Activation.encapsulatedKeyLength else {
            throw .invalidValue(key: "encapsulatedKey", reason: "has \(encapsulated.count) bytes, not \(Activation.encapsulatedKeyLength)")
        }
        return Activation(exchangeID: exchange, encapsulatedKey: encapsulated, identifier: try nonEmpty(json, "identifier"),
                          ciphersuite: try nonEmpty(json, "ciphersuite"), version: try nonEmpty(json, "version"))
    }

    private static func nonEmpty(_ json: JSONValue, _ key: String) throws(JSONError) -> String {
        let text = try json.string(key)
        guard !text.isEmpty, text.utf8.count <= 256 else { throw .invalidValue(key: key, reason: "is empty or longer than 256 bytes") }
        return text
    }
}
