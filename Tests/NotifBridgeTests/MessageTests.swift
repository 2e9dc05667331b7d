import XCTest
import JSON
@testable import NotifBridge

private func text(_ s: String) -> [UInt8] { Array(s.utf8) }

private func refusal<T>(_ parse: () throws(JSONError) -> T) -> String? {
    do throws(JSONError) {
        _ = try parse()
        return nil
    } catch {
        return error.description
    }
}

final class MessageTests: XCTestCase {
    let phone = TestPhone()

    func testPrepare() throws {
        guard case .prepare(let key, let receipt) = try KeyExchangePacket.parse(phone.prepare(exchange: 1, receipt: 101)) else {
            return XCTFail("not a prepare")
        }
        XCTAssertEqual(key.exchangeID.description, TestPhone.uuid(1))
        XCTAssertEqual(receipt.description, TestPhone.uuid(101))
        XCTAssertEqual(key.seed, TestPhone.seed(1))
        XCTAssertEqual(key.publicKey.count, 1216)
    }

    func testActivateKeepsTheStringsAsReceived() throws {
        let packet = text(#"{"phase":"activate","exchangeID":"0A4F7E1C-0000-4000-8000-000000000001","receiptID":"0A4F7E1C-0000-4000-8000-000000000002","encapsulatedKey":""#
            + Base64.encode([UInt8](repeating: 9, count: 1120)) + #"","identifier":"ID\/1","ciphersuite":"xWing","version":"Version1","extra":{"a":[1]}}"#)
        guard case .activate(let activation, let receipt) = try KeyExchangePacket.parse(packet) else { return XCTFail("not an activate") }
        XCTAssertEqual(activation.info, text("xWing-Version1-ID/1"))
        XCTAssertEqual(receipt.description, "0A4F7E1C-0000-4000-8000-000000000002")
    }

    func testLegacySingleShot() throws {
        let seed = TestPhone.seed(3)
        let members: [JSONMember] = [
            JSONMember("identifier", .string("X")), JSONMember("ciphersuite", .string("XWing")), JSONMember("version", .string("Version1")),
            JSONMember("encapsulatedKey", .string(Base64.encode([UInt8](repeating: 1, count: 1120)))),
            JSONMember("publicKey", .string(Base64.encode(TestCryptography.publicKey(seed: seed)))),
            JSONMember("privateKeySeed", .string(Base64.encode(seed))),
        ]
        guard case .legacy(let key, let activation, nil) = try KeyExchangePacket.parse(JSONValue.object(members).encoded) else {
            return XCTFail("not legacy")
        }
        XCTAssertEqual(key.exchangeID, activation.exchangeID)
        XCTAssertEqual(key.exchangeID.uuid.fullLittleEndian.reversed(), Array(key.publicKey.prefix(16)), "named after its public key")
        let withReceipt = JSONValue.object(members + [JSONMember("receiptID", .string(TestPhone.uuid(5)))]).encoded
        guard case .legacy(_, _, let receipt?) = try KeyExchangePacket.parse(withReceipt) else { return XCTFail("no receipt") }
        XCTAssertEqual(receipt.description, TestPhone.uuid(5))
    }

    func testMalformedKeyPacketsAreRefusedWithAReason() {
        let good = String(decoding: phone.prepare(exchange: 1, receipt: 2), as: UTF8.self)
        let cases: [(String, String)] = [
            ("[]", #"JSON: "(packet)" is a array, expected a object"#),
            (#"{"phase":"rotate"}"#, #"JSON: "phase" is "rotate", not prepare or activate"#),
            (good.replacingOccurrences(of: #""phase":"prepare","#, with: #""phase":"prepare","exchangeID":7,"#),
             #"JSON: "exchangeID" is a number, expected a string"#),
            (good.replacingOccurrences(of: TestPhone.uuid(1), with: "not-a-uuid"), #"JSON: "exchangeID" is not a UUID"#),
            (#"{"phase":"prepare","exchangeID":""# + TestPhone.uuid(1) + #"","receiptID":""# + TestPhone.uuid(2)
                + #"","publicKey":"AAAA","privateKeySeed":""# + Base64.encode(TestPhone.seed(1)) + #""}"#,
             #"JSON: "publicKey" has 3 bytes, not 1216"#),
            (#"{"phase":"prepare","exchangeID":""# + TestPhone.uuid(1) + #"","receiptID":""# + TestPhone.uuid(2)
                + #"","publicKey":"A","privateKeySeed":"AAAA"}"#, #"JSON: "privateKeySeed" has 3 bytes, not 32"#),
            (#"{"phase":"activate","exchangeID":""# + TestPhone.uuid(1) + #"","receiptID":""# + TestPhone.uuid(2) + #""}"#,
             #"JSON: missing "encapsulatedKey""#),
            (good + "}", "JSON syntax: bytes after the value at byte \(good.utf8.count)"),
        ]
        for (input, reason) in cases {
            XCTAssertEqual(refusal { () throws(JSONError) in try KeyExchangePacket.parse(text(input)) }, reason, input)
        }
    }

    func testEnvelope() throws {
        let envelope = try NotificationEnvelope.parse(phone.envelope(text("hello"), exchange: 1, receipt: 9))
        XCTAssertEqual(envelope.sessionID.description, phone.session)
        XCTAssertEqual(envelope.receiptID?.description, TestPhone.uuid(9))
        XCTAssertEqual(envelope.sealed.count, 12 + 5 + 16)
        // Lowercase UUID text is the same session (the key context uses the uppercase form).
        let lower = #"{"sessionID":""# + phone.session.lowercased() + #"","data":""# + Base64.encode([UInt8](repeating: 0, count: 28)) + #""}"#
        XCTAssertEqual(try NotificationEnvelope.parse(text(lower)).sessionID.description, phone.session)
        XCTAssertEqual(refusal { () throws(JSONError) in try NotificationEnvelope.parse(text(#"{"sessionID":""# + phone.session + #"","data":"AAAA"}"#)) },
                       #"JSON: "data" has 3 bytes, less than nonce and tag"#)
        XCTAssertEqual(refusal { () throws(JSONError) in try NotificationEnvelope.parse(text(#"{"data":"AAAA"}"#)) }, #"JSON: missing "sessionID""#)
    }

    func testEventKinds() throws {
        let add = try BridgeEvent.parse(TestPhone.event("add", id: 1, sentAt: 800000000.25))
        XCTAssertEqual(add.sentAt, 800000000.25)
        XCTAssertEqual(add.id.text, TestPhone.uuid(1001))
        guard case .add(let n) = add.kind else { return XCTFail("not add") }
        XCTAssertEqual(n.sourceIdentifier, "com.google.Maps")
        XCTAssertEqual(n.identity.notificationIdentifier, "n1")
        XCTAssertEqual(n.title, "Turn left")
        XCTAssertEqual(n.body, "onto Main St")
        XCTAssertEqual(n.sourceName, "Maps")
        XCTAssertTrue(n.shouldAlert)
        XCTAssertEqual(n.attributes, .timeSensitive)
        XCTAssertNil(n.subtitle)

        guard case .update = try BridgeEvent.parse(TestPhone.event("update", id: 2, sentAt: 1)).kind else { return XCTFail("not update") }
        let remove = try BridgeEvent.parse(TestPhone.event("remove", id: 3, sentAt: 1))
        XCTAssertEqual(remove.kind, .remove(NotificationIdentity(sourceIdentifier: "com.google.Maps", notificationIdentifier: "n1")))
        XCTAssertEqual(try BridgeEvent.parse(TestPhone.event("removeAll", id: 4, sentAt: 1)).kind, .removeAll)
        XCTAssertEqual(try BridgeEvent.parse(TestPhone.event("commandResult", id: 5, sentAt: 1)).kind, .commandResult(nil))
    }

    func testFullNotificationFields() throws {
        let json = #"{"version":3,"id":"E1","kind":"add","sentAt":1.5,"notification":{"sourceIdentifier":"com.apple.Music","notificationIdentifier":"x","title":"T","subtitle":"S","body":"B","threadIdentifier":"th","summary":"su","hasSound":true,"isSuppressedByFocus":true,"ignoreSilentMode":true,"isCleared":false,"displayDateIsAllDay":true,"attributes":5,"actions":[{"id":"a1","title":"Reply","type":"textInput"},{"id":"a2","title":"Mark"},{"id":"a3","title":"Open","type":{"background":{}}}],"receivedAt":10.5,"deliveryDate":11,"displayDate":12.25,"alertKind":"notification","attachments":[{"data":"AAAA"}]}}"#
        guard case .add(let n) = try BridgeEvent.parse(text(json)).kind else { return XCTFail("not add") }
        XCTAssertEqual([n.title, n.subtitle, n.body, n.threadIdentifier, n.summary], ["T", "S", "B", "th", "su"])
        XCTAssertEqual(n.alertKind, .notification)
        XCTAssertEqual([n.hasSound, n.isSuppressedByFocus, n.ignoreSilentMode, n.isCleared, n.displayDateIsAllDay], [true, true, true, false, true])
        XCTAssertEqual(n.attributes, [.critical, .priority])
        // A bare case name (an older sender) is read; a missing type keeps the action.
        XCTAssertEqual(n.actions, [NotificationAction(id: "a1", title: "Reply", type: .textInput(placeholder: "")),
                                   NotificationAction(id: "a2", title: "Mark", type: .unrecognized("(absent)")),
                                   NotificationAction(id: "a3", title: "Open", type: .background)])
        XCTAssertEqual(n.attachments, [NotificationAttachment(id: nil, uti: nil, byteCount: 3, unavailableReason: nil)])
        XCTAssertEqual([n.receivedAt, n.deliveryDate, n.displayDate], [10.5, 11, 12.25])
    }

    func testMalformedEventsAreRefusedWithAReason() {
        let cases: [(String, String)] = [
            (#"{"version":2,"id":"a","kind":"add","sentAt":1}"#, #"JSON: "version" is 2, not 3"#),
            (#"{"version":"3","id":"a","kind":"add","sentAt":1}"#, #"JSON: "version" is a string, expected a number"#),
            (#"{"version":3,"id":"a","kind":"poke","sentAt":1}"#, #"JSON: "kind" is "poke", not a known event"#),
            (#"{"version":3,"id":"a","kind":"add","sentAt":1}"#, #"JSON: missing "notification""#),
            (#"{"version":3,"id":"a","kind":"remove","sentAt":1}"#, #"JSON: missing "identity""#),
            (#"{"version":3,"id":"a","kind":"add"}"#, #"JSON: missing "sentAt""#),
            (#"{"version":3,"id":"a","kind":"add","sentAt":1,"notification":{"sourceIdentifier":"x"}}"#, #"JSON: missing "notificationIdentifier""#),
        ]
        for (input, reason) in cases {
            XCTAssertEqual(refusal { () throws(JSONError) in try BridgeEvent.parse(text(input)) }, reason, input)
        }
    }

    func testReverseCommandAndReceipt() throws {
        let identity = NotificationIdentity(sourceIdentifier: "com.google.Maps", notificationIdentifier: "n\"1")
        let command = ReverseCommand(id: CommandID(uuidFromText(TestPhone.uuid(77))!), kind: .displayed(didAlert: true),
                                     identity: identity, replyTo: EventID("E-1"))
        XCTAssertEqual(String(decoding: command.encoded, as: UTF8.self),
                       #"{"version":3,"id":""# + TestPhone.uuid(77) + #"","kind":"displayed","identity":{"sourceIdentifier":"com.google.Maps","notificationIdentifier":"n\"1"},"replyTo":"E-1","didAlert":true}"#)
        let respond = ReverseCommand(id: CommandID(uuidFromText(TestPhone.uuid(78))!), kind: .respond(actionID: "reply", userText: "On my way"),
                                     identity: identity, replyTo: EventID("E-2"))
        XCTAssertEqual(String(decoding: respond.encoded, as: UTF8.self),
                       #"{"version":3,"id":""# + TestPhone.uuid(78) + #"","kind":"respond","identity":{"sourceIdentifier":"com.google.Maps","notificationIdentifier":"n\"1"},"actionIdentifier":"reply","userText":"On my way","replyTo":"E-2"}"#)
        XCTAssertEqual(String(decoding: ReversePlaintext.receipt(ReceiptID(uuidFromText(TestPhone.uuid(5))!)), as: UTF8.self), Harness.receipt(5))
        XCTAssertEqual(ReversePlaintext.readiness, text("NB-RECEIVER-READY-1"))
        // A random command id is a version 4 UUID.
        let random = CommandID(random: [UInt8](repeating: 0xFF, count: 16)).description
        XCTAssertEqual(Array(random)[14], "4")
        XCTAssertEqual(Array(random)[19], "B")
    }

    func testUUIDTextIsStrict() {
        XCTAssertNotNil(uuidFromText("D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C44"))
        XCTAssertNotNil(uuidFromText("d5e12b7a-7d8e-4f12-9b5c-3f0a1e6d8c44"))
        XCTAssertNil(uuidFromText("D5E12B7A7D8E4F129B5C3F0A1E6D8C44"))
        XCTAssertNil(uuidFromText("D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C4"))
        XCTAssertNil(uuidFromText("D5E12B7A-7D8E-4F12-9B5C:3F0A1E6D8C44"))
        XCTAssertNil(uuidFromText("G5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C44"))
    }
}
