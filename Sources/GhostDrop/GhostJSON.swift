import BluetoothCore
import JSON

/// The JSON of GhostDrop's messages, member for member as its Codable types
/// declare them. Written compact with members in declaration order, `Data`
/// as padded base64, UUIDs as `uuidString`, absent optionals left out and
/// `/` escaped as `\/` (JSONEncoder's defaults). JSONEncoder without
/// `.sortedKeys` may put members in any order, so reading never depends on it.
public enum GhostJSON {
    /// The bytes JSONEncoder writes for `value`. JSONValue's writer leaves
    /// `/` alone; a `/` can only occur inside a string, so escaping every
    /// one afterwards is exact.
    public static func encode(_ value: JSONValue) -> [UInt8] {
        let plain = value.encoded
        var out: [UInt8] = []
        out.reserveCapacity(plain.count + plain.count / 16)
        for byte in plain {
            if byte == 0x2F { out.append(0x5C) }
            out.append(byte)
        }
        return out
    }

    // MARK: writing

    static func uuid(_ id: GhostUUID) -> JSONValue { .string(id.description) }
    static func data(_ bytes: [UInt8]) -> JSONValue { .string(Base64.encode(bytes)) }
    static func int(_ value: Int) -> JSONValue { .number(JSONNumber(value)) }
    static func uint(_ value: UInt64) -> JSONValue { .number(JSONNumber(value)) }

    public static func value(_ c: GhostCapabilities) -> JSONValue {
        .object([JSONMember("supportsL2CAP", .bool(c.supportsL2CAP)), JSONMember("maxChunk", int(c.maxChunk)),
                 JSONMember("maxWindow", int(c.maxWindow)), JSONMember("protocolVersion", int(c.protocolVersion))])
    }

    /// The capabilities characteristic's value and the advertisement's
    /// service data (`BLEAdvertisementCapabilities`): the PSM is left out
    /// when no L2CAP channel is published.
    public static func advertisement(_ capabilities: GhostCapabilities, psm: UInt16?) -> [UInt8] {
        var members = [JSONMember("capabilities", value(capabilities))]
        if let psm { members.append(JSONMember("psm", int(Int(psm)))) }
        return encode(.object(members))
    }

    /// The body of `frame`: one object, one member named after the kind.
    public static func body(_ frame: GhostFrame) -> [UInt8] {
        encode(.object([JSONMember(frame.kind.jsonKey, payload(frame))]))
    }

    static func payload(_ frame: GhostFrame) -> JSONValue {
        switch frame {
        case .hello(let h):
            return .object([JSONMember("sessionID", uuid(h.sessionID)),
                            JSONMember("deviceID", .object([JSONMember("rawValue", uuid(h.deviceID))])),
                            JSONMember("ephemeralPublicKey", data(h.ephemeralPublicKey)), JSONMember("nonce", data(h.nonce)),
                            JSONMember("capabilities", value(h.capabilities))])
        case .helloAck(let a):
            return .object([JSONMember("sessionID", uuid(a.sessionID)), JSONMember("ephemeralPublicKey", data(a.ephemeralPublicKey)),
                            JSONMember("nonce", data(a.nonce))])
        case .verify(let v):
            return .object([JSONMember("transcriptHash", data(v.transcriptHash)), JSONMember("sasCode", .string(v.sasCode))])
        case .verifyAck(let accepted):
            return .object([JSONMember("accepted", .bool(accepted))])
        case .metadata(let m):
            return .object([JSONMember("transferID", uuid(m.transferID)), JSONMember("filename", .string(m.filename)),
                            JSONMember("size", .number(JSONNumber(Int(m.size)))), JSONMember("mimeType", .string(m.mimeType)),
                            JSONMember("sha256", data(m.sha256)), JSONMember("chunkSize", int(m.chunkSize))])
        case .data(let sequence, let payload):
            return .object([JSONMember("sequence", uint(sequence)), JSONMember("payload", data(payload))])
        case .ack(let a):
            return .object([JSONMember("cumulativeSequence", uint(a.cumulativeSequence)), JSONMember("nackBitmap", uint(a.nackBitmap))])
        case .resume(let r):
            return .object([JSONMember("transferID", uuid(r.transferID)), JSONMember("lastConfirmedSequence", uint(r.lastConfirmedSequence))])
        case .complete(let c):
            return .object([JSONMember("transferID", uuid(c.transferID)), JSONMember("sha256", data(c.sha256))])
        case .cancel(let reason):
            return .object([JSONMember("reason", .string(reason))])
        case .ping(let id):
            return .object([JSONMember("id", uint(UInt64(id)))])
        case .encrypted(let sequence, let combined):
            return .object([JSONMember("sequence", uint(sequence)), JSONMember("combined", data(combined))])
        }
    }

    // MARK: reading

    /// The frame a body of `kind` holds. Members other than the kind's are
    /// ignored (the reference decodes them as absent optionals).
    public static func frame(kind: GhostFrameKind, body: [UInt8]) throws(JSONError) -> GhostFrame {
        let root = try JSONParser.parse(body, limits: limits)
        guard root.isObject else { throw .wrongType(key: "(body)", expected: .object, found: root.type) }
        let p = try root.object(kind.jsonKey)
        switch kind {
        case .hello:
            let device = try p.object("deviceID")
            return .hello(GhostHello(sessionID: try uuid(p, "sessionID"), deviceID: try uuid(device, "rawValue"),
                                     ephemeralPublicKey: try p.base64("ephemeralPublicKey"), nonce: try p.base64("nonce"),
                                     capabilities: try capabilities(try p.object("capabilities"))))
        case .helloAck:
            return .helloAck(GhostHelloAck(sessionID: try uuid(p, "sessionID"), ephemeralPublicKey: try p.base64("ephemeralPublicKey"),
                                           nonce: try p.base64("nonce")))
        case .verify:
            return .verify(GhostVerification(transcriptHash: try p.base64("transcriptHash"), sasCode: try p.string("sasCode")))
        case .verifyAck:
            guard let accepted = try p.optionalBool("accepted") else { throw .missing(key: "accepted") }
            return .verifyAck(accepted: accepted)
        case .metadata:
            return .metadata(try metadata(p))
        case .data:
            return .data(sequence: try uint64(p, "sequence"), payload: try p.base64("payload"))
        case .ack:
            return .ack(GhostAck(cumulativeSequence: try uint64(p, "cumulativeSequence"), nackBitmap: try uint64(p, "nackBitmap")))
        case .resume:
            return .resume(GhostResume(transferID: try uuid(p, "transferID"), lastConfirmedSequence: try uint64(p, "lastConfirmedSequence")))
        case .complete:
            return .complete(GhostComplete(transferID: try uuid(p, "transferID"), sha256: try p.base64("sha256")))
        case .cancel:
            return .cancel(reason: try p.string("reason"))
        case .ping:
            let id = try uint64(p, "id")
            guard id <= UInt64(UInt32.max) else { throw .invalidValue(key: "id", reason: "exceeds UInt32") }
            return .ping(id: UInt32(id))
        case .encrypted:
            return .encrypted(sequence: try uint64(p, "sequence"), combined: try p.base64("combined"))
        }
    }

    /// A data frame's base64 is 4/3 of the chunk; 256 KiB bodies hold
    /// chunks far above any BLE MTU or L2CAP SDU.
    static let limits = JSONLimits(maxSize: GhostFrameCodec.maxBodyLength, maxDepth: 8, maxElements: 64)

    static func metadata(_ p: JSONValue) throws(JSONError) -> GhostFileMetadata {
        let size = try p.int("size")
        guard size >= 0 else { throw .invalidValue(key: "size", reason: "is negative") }
        return GhostFileMetadata(transferID: try uuid(p, "transferID"), filename: try p.string("filename"),
                                 size: Int64(size), mimeType: try p.string("mimeType"),
                                 sha256: try p.base64("sha256"), chunkSize: try p.int("chunkSize"))
    }

    public static func capabilities(_ c: JSONValue) throws(JSONError) -> GhostCapabilities {
        guard let l2cap = try c.optionalBool("supportsL2CAP") else { throw .missing(key: "supportsL2CAP") }
        return GhostCapabilities(supportsL2CAP: l2cap, maxChunk: try c.int("maxChunk"), maxWindow: try c.int("maxWindow"),
                                 protocolVersion: try c.int("protocolVersion"))
    }

    static func uuid(_ v: JSONValue, _ key: String) throws(JSONError) -> GhostUUID {
        guard let id = GhostUUID(try v.string(key)) else { throw .invalidValue(key: key, reason: "is not a UUID") }
        return id
    }

    static func uint64(_ v: JSONValue, _ key: String) throws(JSONError) -> UInt64 {
        guard let n = try v.optionalNumber(key) else { throw .missing(key: key) }
        guard let value = n.uint64 else { throw .invalidValue(key: key, reason: "is not an unsigned 64-bit integer: \(n.text)") }
        return value
    }
}
