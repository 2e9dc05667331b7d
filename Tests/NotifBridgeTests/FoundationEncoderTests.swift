import Foundation
import XCTest
@testable import NotifBridge

/// The app's bytes from the app's own encoder: Foundation's `JSONEncoder()`
/// with its default strategies, run on types that declare what the
/// NotifBridge app's `NotifWire.Event` declares (its members, their order
/// and types; docs/NOTIFBRIDGE.md, "Messages"). The hand-written vectors of
/// `AppEncodingTests` are checked against it, so neither this project's
/// parser nor its simulator decides what the app writes.
final class FoundationEncoderTests: XCTestCase {
    struct Identity: Codable { var sourceIdentifier: String; var notificationIdentifier: String }
    struct Attributes: OptionSet, Codable { let rawValue: UInt8 }
    enum AlertKind: String, Codable { case notification, incomingCall, alarm, timer }
    enum ActionType: Codable { case background, textInput(placeholder: String), dismiss, unknown(UInt8) }
    struct Action: Codable { var id: String; var title: String; var type: ActionType }
    struct Attachment: Codable { var id: UUID; var uti: String; var data: Data; var unavailableReason: String? }
    struct Notification: Codable {
        var title = "", subtitle = "", body = "", sourceName = "", sourceIdentifier = ""
        var notificationIdentifier = "", threadIdentifier = ""
        var hasSound = false
        var attributes = Attributes(rawValue: 0)
        var actions: [Action] = []
        var sourceIcon = Data(), contextIcon = Data()
        var attachments: [Attachment] = []
        var receivedAt: Date
        var transportSessionID: String?
        var deliveryDate: Date
        var displayDate: Date?
        var displayDateIsAllDay = false
        var summary = ""
        var richBody: Data?
        var shouldAlert = true, isSuppressedByFocus = false, ignoreSilentMode = false
        var alertKind = AlertKind.notification
        var isCleared = false
    }
    enum Kind: String, Codable { case add, update, remove, removeAll, commandResult }
    struct Event: Codable {
        var version = 3
        var id: UUID
        var kind: Kind
        var notification: Notification?
        var identity: Identity?
        var sentAt: Date
    }

    /// `AppEncodingTests.mapsWithActions`, built as the app builds it.
    static var mapsWithActions: Event {
        var n = Notification(receivedAt: Date(timeIntervalSinceReferenceDate: 786001234.5),
                             deliveryDate: Date(timeIntervalSinceReferenceDate: 786001234.25),
                             displayDate: Date(timeIntervalSinceReferenceDate: 786001234))
        (n.title, n.body, n.sourceName, n.sourceIdentifier) = ("200 m", "Turn left onto Main St", "Google Maps", "com.google.Maps")
        (n.notificationIdentifier, n.threadIdentifier) = ("9C0F6E1A-7B2D-4E3F-9A0B-1C2D3E4F5A6B", "navigation")
        n.attributes = Attributes(rawValue: 2)
        n.actions = [Action(id: "end-route", title: "End route", type: .background),
                     Action(id: "reply", title: "Reply", type: .textInput(placeholder: "Message")),
                     Action(id: "close", title: "Close", type: .dismiss),
                     Action(id: "later", title: "Later", type: .unknown(255))]
        n.sourceIcon = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAE=")!
        n.contextIcon = Data(base64Encoded: "/9j/4AAQ")!
        n.transportSessionID = "5D1F0C3A-1111-4222-8333-444455556666"
        return Event(id: UUID(uuidString: "6F1C2B0A-3D4E-4F50-8A1B-2C3D4E5F6071")!, kind: .add, notification: n,
                     sentAt: Date(timeIntervalSinceReferenceDate: 786001234.75))
    }

    /// The same members, values and nesting (the order of members is the
    /// encoder's business: Foundation on Linux does not keep it, the
    /// receiver never depends on it), and `/` escaped as the app writes it.
    func testTheHandWrittenVectorIsWhatJSONEncoderWrites() throws {
        let written = try JSONEncoder().encode(Self.mapsWithActions)
        let encoded = try JSONSerialization.jsonObject(with: written) as? NSDictionary
        let handWritten = try JSONSerialization.jsonObject(with: Data(AppEncodingTests.mapsWithActions.utf8)) as? NSDictionary
        XCTAssertNotNil(encoded)
        XCTAssertEqual(encoded, handWritten)
        XCTAssertTrue(String(decoding: written, as: UTF8.self).contains(#""\/9j\/4AAQ""#))
    }

    func testWhatJSONEncoderWritesIsReadWithEveryAction() throws {
        let event = try BridgeEvent.parse(Array(try JSONEncoder().encode(Self.mapsWithActions)))
        guard case .add(let n) = event.kind else { return XCTFail("not an add") }
        XCTAssertEqual(n.title, "200 m")
        XCTAssertEqual(n.body, "Turn left onto Main St")
        XCTAssertEqual(n.actions.map(\.type), [.background, .textInput(placeholder: "Message"), .dismiss, .unknown(code: 255)])
        XCTAssertEqual(n.contextIconBytes, 6)
        XCTAssertEqual(event.sentAt, 786001234.75)
    }

    /// Every alert kind and an attachment, as JSONEncoder writes them.
    func testAlertKindsAndAttachmentsFromJSONEncoderAreRead() throws {
        for kind in [AlertKind.notification, .incomingCall, .alarm, .timer] {
            var event = Self.mapsWithActions
            event.notification?.alertKind = kind
            event.notification?.attachments = [Attachment(id: UUID(uuidString: "0B1C2D3E-4F50-4162-8374-95A6B7C8D9EA")!,
                                                          uti: "public.png", data: Data([1, 2, 3]), unavailableReason: nil)]
            let parsed = try BridgeEvent.parse(Array(try JSONEncoder().encode(event)))
            guard case .add(let n) = parsed.kind else { return XCTFail("not an add") }
            XCTAssertEqual(n.attachments.count, 1, "\(kind)")
            XCTAssertEqual(n.actions.count, 4, "\(kind)")
        }
    }
}
