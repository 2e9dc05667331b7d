import XCTest
import JSON
@testable import NotifBridge

/// Events as the NotifBridge app's `JSONEncoder()` (default strategies)
/// writes its `NotifWire.Event` (docs/NOTIFBRIDGE.md, "Messages"): members
/// in declaration order, no spaces, every non-optional member present
/// (empty strings, `false`, `[]`, empty Data as ""), nil optionals left
/// out, Date as seconds since 2001-01-01 (a whole number without `.0`),
/// Data as base64 with `/` escaped `\/`, UUIDs uppercase, the String enums
/// (`kind`, `alertKind`) by case name, the OptionSet `attributes` by raw
/// value, and `ActionType` (an enum with associated values) as an object
/// with one member named after the case holding its labelled payload
/// (`_0` for the unlabelled `unknown(UInt8)`).
final class AppEncodingTests: XCTestCase {
    /// Google Maps with one action of every type, both icons, no attachment.
    static let mapsWithActions = #"{"version":3,"id":"6F1C2B0A-3D4E-4F50-8A1B-2C3D4E5F6071","kind":"add","notification":{"title":"200 m","subtitle":"","body":"Turn left onto Main St","sourceName":"Google Maps","sourceIdentifier":"com.google.Maps","notificationIdentifier":"9C0F6E1A-7B2D-4E3F-9A0B-1C2D3E4F5A6B","threadIdentifier":"navigation","hasSound":false,"attributes":2,"actions":[{"id":"end-route","title":"End route","type":{"background":{}}},{"id":"reply","title":"Reply","type":{"textInput":{"placeholder":"Message"}}},{"id":"close","title":"Close","type":{"dismiss":{}}},{"id":"later","title":"Later","type":{"unknown":{"_0":255}}}],"sourceIcon":"iVBORw0KGgoAAAANSUhEUgAAAAE=","contextIcon":"\/9j\/4AAQ","attachments":[],"receivedAt":786001234.5,"transportSessionID":"5D1F0C3A-1111-4222-8333-444455556666","deliveryDate":786001234.25,"displayDate":786001234,"displayDateIsAllDay":false,"summary":"","shouldAlert":true,"isSuppressedByFocus":false,"ignoreSilentMode":false,"alertKind":"notification","isCleared":false},"sentAt":786001234.75}"#

    func testAMapsNotificationWithEveryActionTypeIsRead() throws {
        let event = try BridgeEvent.parse(Array(Self.mapsWithActions.utf8))
        XCTAssertEqual(event.id.text, "6F1C2B0A-3D4E-4F50-8A1B-2C3D4E5F6071")
        XCTAssertEqual(event.sentAt, 786001234.75)
        guard case .add(let n) = event.kind else { return XCTFail("not an add") }
        XCTAssertEqual(n.identity, NotificationIdentity(sourceIdentifier: "com.google.Maps", notificationIdentifier: "9C0F6E1A-7B2D-4E3F-9A0B-1C2D3E4F5A6B"))
        XCTAssertEqual([n.title, n.subtitle, n.body, n.sourceName, n.threadIdentifier, n.summary],
                       ["200 m", "", "Turn left onto Main St", "Google Maps", "navigation", ""])
        XCTAssertEqual(n.actions, [
            NotificationAction(id: "end-route", title: "End route", type: .background),
            NotificationAction(id: "reply", title: "Reply", type: .textInput(placeholder: "Message")),
            NotificationAction(id: "close", title: "Close", type: .dismiss),
            NotificationAction(id: "later", title: "Later", type: .unknown(code: 255)),
        ])
        XCTAssertEqual(n.attributes, .timeSensitive)
        XCTAssertEqual(n.sourceIconBytes, 20)
        XCTAssertEqual(n.contextIconBytes, 6, #"base64 "/9j/4AAQ" with its slashes escaped"#)
        XCTAssertEqual(n.attachments, [])
        XCTAssertEqual(n.transportSessionID, "5D1F0C3A-1111-4222-8333-444455556666")
        XCTAssertFalse(n.hasRichBody)
        XCTAssertEqual([n.receivedAt, n.deliveryDate, n.displayDate], [786001234.5, 786001234.25, 786001234])
        XCTAssertEqual([n.hasSound, n.displayDateIsAllDay, n.shouldAlert, n.isSuppressedByFocus, n.ignoreSilentMode, n.isCleared],
                       [false, false, true, false, false, false])
        XCTAssertEqual(n.alertKind, .notification)
    }

    /// A call with two attachments (one unavailable), a rich body, no
    /// display date (a nil optional is left out), and the other alert kinds.
    static func callWithAttachments(alertKind: String) -> String {
        #"{"version":3,"id":"0D9E8F7A-6B5C-4D3E-8F2A-1B0C9D8E7F6A","kind":"update","notification":{"title":"Anna","subtitle":"mobile","body":"Incoming call","sourceName":"Phone","sourceIdentifier":"com.apple.mobilephone","notificationIdentifier":"call-1","threadIdentifier":"","hasSound":true,"attributes":7,"actions":[{"id":"decline","title":"Decline","type":{"dismiss":{}}}],"sourceIcon":"","contextIcon":"","attachments":[{"id":"A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D","uti":"public.jpeg","data":"\/9j\/4AAQSkZJRgABAQ=="},{"id":"B2C3D4E5-F6A7-4B8C-9D0E-1F2A3B4C5D6E","uti":"public.png","data":"","unavailableReason":"too large"}],"receivedAt":-12.5,"deliveryDate":786001300,"displayDateIsAllDay":true,"summary":"1 more","richBody":"PGI+QW5uYTwvYj4=","shouldAlert":true,"isSuppressedByFocus":true,"ignoreSilentMode":true,"alertKind":""#
            + alertKind + #"","isCleared":false},"sentAt":786001300.125}"#
    }

    func testAttachmentsIconsAndEveryAlertKind() throws {
        for (text, kind) in [("incomingCall", NotificationAlertKind.incomingCall), ("alarm", .alarm), ("timer", .timer),
                             ("notification", .notification), ("somethingNew", .other("somethingNew"))] {
            let event = try BridgeEvent.parse(Array(Self.callWithAttachments(alertKind: text).utf8))
            guard case .update(let n) = event.kind else { return XCTFail("not an update") }
            XCTAssertEqual(n.alertKind, kind, text)
            XCTAssertEqual(n.attributes, [.critical, .timeSensitive, .priority])
            XCTAssertEqual(n.attachments, [
                NotificationAttachment(id: "A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D", uti: "public.jpeg", byteCount: 13, unavailableReason: nil),
                NotificationAttachment(id: "B2C3D4E5-F6A7-4B8C-9D0E-1F2A3B4C5D6E", uti: "public.png", byteCount: 0, unavailableReason: "too large"),
            ])
            XCTAssertEqual([n.sourceIconBytes, n.contextIconBytes], [0, 0])
            XCTAssertTrue(n.hasRichBody)
            XCTAssertNil(n.displayDate, "absent: the app's displayDate was nil")
            XCTAssertEqual(n.receivedAt, -12.5, "a date before 2001 is negative")
            XCTAssertEqual([n.hasSound, n.displayDateIsAllDay, n.isSuppressedByFocus, n.ignoreSilentMode], [true, true, true, true])
            XCTAssertEqual(n.actions, [NotificationAction(id: "decline", title: "Decline", type: .dismiss)])
        }
    }

    func testRemoveRemoveAllAndCommandResult() throws {
        let remove = #"{"version":3,"id":"1A2B3C4D-5E6F-4A0B-9C1D-2E3F4A5B6C7D","kind":"remove","identity":{"sourceIdentifier":"com.google.Maps","notificationIdentifier":"nav-1"},"sentAt":786001400}"#
        XCTAssertEqual(try BridgeEvent.parse(Array(remove.utf8)).kind,
                       .remove(NotificationIdentity(sourceIdentifier: "com.google.Maps", notificationIdentifier: "nav-1")))
        let removeAll = #"{"version":3,"id":"2B3C4D5E-6F7A-4B1C-8D2E-3F4A5B6C7D8E","kind":"removeAll","sentAt":786001401.5}"#
        XCTAssertEqual(try BridgeEvent.parse(Array(removeAll.utf8)).kind, .removeAll)
        let result = #"{"version":3,"id":"3C4D5E6F-7A8B-4C2D-9E3F-4A5B6C7D8E9F","kind":"commandResult","result":{"commandID":"4D5E6F7A-8B9C-4D3E-8F4A-5B6C7D8E9FA0","success":false,"message":"no such notification"},"sentAt":786001402}"#
        XCTAssertEqual(try BridgeEvent.parse(Array(result.utf8)).kind,
                       .commandResult(BridgeCommandResult(commandID: "4D5E6F7A-8B9C-4D3E-8F4A-5B6C7D8E9FA0", success: false, message: "no such notification")))
    }

    /// What a later app may write: a new action case, a new member, a
    /// member of a type not expected. The notification is still read.
    func testWhatThisHeadUnitDoesNotKnowDoesNotDropTheNotification() throws {
        let text = Self.mapsWithActions
            .replacingOccurrences(of: #"{"dismiss":{}}"#, with: #"{"openApp":{"url":"maps:\/\/"}}"#)
            .replacingOccurrences(of: #""hasSound":false"#, with: #""hasSound":"no","priority":{"level":3}"#)
            .replacingOccurrences(of: #""attachments":[]"#, with: #""attachments":[7,{"uti":"public.png","data":"AAAA"}]"#)
        let event = try BridgeEvent.parse(Array(text.utf8))
        guard case .add(let n) = event.kind else { return XCTFail("not an add") }
        XCTAssertEqual(n.body, "Turn left onto Main St")
        XCTAssertEqual(n.actions.map { $0.type }, [.background, .textInput(placeholder: "Message"), .unrecognized("openApp"), .unknown(code: 255)])
        XCTAssertFalse(n.hasSound, "a member of the wrong type is left at its default")
        XCTAssertEqual(n.attachments.map { $0.byteCount }, [3])
    }
}
