import BluetoothCore
import Testing
@testable import ANCS

/// Notification Source messages: 8 bytes, every EventID and flag, malformed lengths.
@Suite struct NotificationSourceTests {
    @Test func specificationExample() throws {
        // The Notification Source bytes of the ANCS specification's example
        // (the same UID 0x43 its GetNotificationAttributes example asks about).
        let event = try NotificationSourceEvent(parsing: bytesFromHex("00 01 00 01 43 00 00 00")!)
        #expect(event.eventID == .added)
        #expect(event.flags == [.silent])
        #expect(event.category == .other)
        #expect(event.categoryCount == 1)
        #expect(event.uid == NotificationUID(0x43))
    }

    @Test func incomingCallWithBothActions() throws {
        // EventID Added, flags Important|PositiveAction|NegativeAction,
        // CategoryID IncomingCall, CategoryCount 1, UID 0x00000043.
        let event = try NotificationSourceEvent(parsing: bytesFromHex("00 1a 01 01 43 00 00 00")!)
        #expect(event.eventID == .added)
        #expect(event.flags == [.important, .positiveAction, .negativeAction])
        #expect(event.category == .incomingCall)
        #expect(event.categoryCount == 1)
        #expect(event.uid == NotificationUID(0x43))
    }

    @Test func everyEventID() throws {
        #expect(try NotificationSourceEvent(parsing: [0, 0, 10, 1, 1, 0, 0, 0]).eventID == .added)
        #expect(try NotificationSourceEvent(parsing: [1, 0, 10, 1, 1, 0, 0, 0]).eventID == .modified)
        #expect(try NotificationSourceEvent(parsing: [2, 0, 10, 0, 1, 0, 0, 0]).eventID == .removed)
        for reserved: UInt8 in [3, 4, 0x7F, 0xFF] {
            #expect(throws: NotificationSourceEvent.ParseError.reservedEventID(reserved)) {
                try NotificationSourceEvent(parsing: [reserved, 0, 0, 0, 1, 0, 0, 0])
            }
        }
    }

    @Test func everyFlagBitIncludingReservedOnes() throws {
        let expected: [EventFlags] = [.silent, .important, .preExisting, .positiveAction, .negativeAction]
        for (bit, flag) in expected.enumerated() {
            let e = try NotificationSourceEvent(parsing: [0, UInt8(1 << bit), 0, 1, 7, 0, 0, 0])
            #expect(e.flags == flag)
        }
        let all = try NotificationSourceEvent(parsing: [0, 0xFF, 0, 1, 7, 0, 0, 0])
        #expect(all.flags.contains([.silent, .important, .preExisting, .positiveAction, .negativeAction]))
        #expect(all.flags.rawValue == 0xFF) // reserved bits are kept, not lost
        #expect(all.flags.description == "[silent,important,preexisting,positive,negative,reserved:0xe0]")
    }

    @Test func uidIsLittleEndianAndCategoriesAreNamed() throws {
        let e = try NotificationSourceEvent(parsing: bytesFromHex("01 04 0a 02 78 56 34 12")!)
        #expect(e.uid.value == 0x1234_5678)
        #expect(e.category == .location)
        #expect(e.category.name == "Location")
        #expect(CategoryID(11).name == "Entertainment")
        #expect(CategoryID(200).name == "Reserved(200)")
        #expect(CategoryID(name: "location") == .location)
        #expect(CategoryID(name: "11") == .entertainment)
        #expect(CategoryID(name: "Weather") == nil)
    }

    @Test func malformedLengthsAreRejected() {
        for length in [0, 1, 4, 7, 9, 20] {
            #expect(throws: NotificationSourceEvent.ParseError.length(length)) {
                try NotificationSourceEvent(parsing: [UInt8](repeating: 0, count: length))
            }
        }
    }

    @Test func roundTrip() throws {
        let e = NotificationSourceEvent(eventID: .modified, flags: [.silent, .preExisting], category: .social,
                                        categoryCount: 9, uid: NotificationUID(0xDEAD_BEEF))
        #expect(e.bytes == bytesFromHex("01 05 04 09 ef be ad de")!)
        #expect(try NotificationSourceEvent(parsing: e.bytes) == e)
    }
}

/// Control Point command encodings.
@Suite struct ControlPointCommandTests {
    @Test func getNotificationAttributesAsInTheSpecificationExample() {
        // UID 0x43: AppIdentifier, Title (max 0xFFFF), Date.
        let command = ControlPointCommand.getNotificationAttributes(NotificationUID(0x43), [
            NotificationAttributeRequest(.appIdentifier),
            NotificationAttributeRequest(.title, maxLength: 0xFFFF),
            NotificationAttributeRequest(.date),
        ])
        #expect(command.bytes == bytesFromHex("00 43 00 00 00 00 01 ff ff 05")!)
    }

    @Test func maxLengthsOnlyAfterTitleSubtitleMessage() {
        let command = ANCSHarness.text(7, flags: [.positiveAction, .negativeAction])
        // Title 64, Subtitle 64, Message 256, Date, both labels.
        #expect(command.bytes == bytesFromHex("00 07000000 01 4000 02 4000 03 0001 05 06 07")!)
        #expect(ANCSHarness.text(7).bytes == bytesFromHex("00 07000000 01 4000 02 4000 03 0001 05")!)
    }

    @Test func getAppAttributesIsNulTerminated() {
        let command = ControlPointCommand.getAppAttributes(AppIdentifier("com.google.Maps"), [.displayName])
        #expect(command.bytes == [1] + Array("com.google.Maps".utf8) + [0, 0])
        #expect(command.expectedResponse(sanityLimit: 100)?.header == [1] + Array("com.google.Maps".utf8) + [0])
    }

    @Test func performNotificationAction() {
        #expect(ControlPointCommand.performNotificationAction(NotificationUID(0x0102_0304), .negative).bytes
                == bytesFromHex("02 04 03 02 01 01")!)
        #expect(ControlPointCommand.performNotificationAction(NotificationUID(1), .positive).expectedResponse(sanityLimit: 9) == nil)
    }

    @Test func appIdentifiersThatCannotBeSent() {
        #expect(AppIdentifier("com.apple.MobileSMS").canBeSent)
        #expect(!AppIdentifier("").canBeSent)
        #expect(!AppIdentifier("com.evil\u{0}x").canBeSent)
    }
}
