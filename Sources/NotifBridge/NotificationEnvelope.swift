import JSON

/// One encrypted message: which session's key, the AES-GCM blob
/// (nonce ‖ ciphertext ‖ tag), and the receipt to send once it is taken
/// (absent in the reverse direction).
public struct NotificationEnvelope: Equatable {
    /// Nonce and tag around at least an empty ciphertext.
    public static let minimumSealedLength = 12 + 16

    public let sessionID: SessionID
    public let sealed: [UInt8]
    public let receiptID: ReceiptID?

    public init(sessionID: SessionID, sealed: [UInt8], receiptID: ReceiptID?) {
        self.sessionID = sessionID
        self.sealed = sealed
        self.receiptID = receiptID
    }

    public static func parse(_ frame: [UInt8]) throws(JSONError) -> NotificationEnvelope {
        let json = try JSONParser.parse(frame, limits: .notifBridge)
        guard json.isObject else { throw .wrongType(key: "(envelope)", expected: .object, found: json.type) }
        let session = SessionID(try json.uuid("sessionID"))
        let sealed = try json.base64("data")
        guard sealed.count >= minimumSealedLength else {
            throw .invalidValue(key: "data", reason: "has \(sealed.count) bytes, less than nonce and tag")
        }
        return NotificationEnvelope(sessionID: session, sealed: sealed,
                                    receiptID: try json.optionalUUID("receiptID").map(ReceiptID.init))
    }

    /// The reverse direction's form: no receipt id.
    public var encoded: [UInt8] {
        var members = [JSONMember("sessionID", .string(sessionID.description)), JSONMember("data", .string(Base64.encode(sealed)))]
        if let receiptID { members.append(JSONMember("receiptID", .string(receiptID.description))) }
        return JSONValue.object(members).encoded
    }
}
