import BluetoothCore
import Testing
@testable import ANCS

/// Data Source reassembly, driven by the attribute list of the request.
@Suite struct DataSourceReassemblerTests {
    static let uid: UInt32 = 0x0000_1234
    static let textCommand = ANCSHarness.text(uid, flags: [.positiveAction])
    static let expectation = textCommand.expectedResponse(sanityLimit: 512)!

    /// A Google Maps turn instruction with a long message, larger than one
    /// notification at either MTU, and a zero-length Subtitle in the middle.
    static let attributes: [(NotificationAttributeID, String)] = [
        (.title, "In 300 m, turn right"),
        (.subtitle, ""),
        (.message, "onto Bahnhofstraße towards Zürich Hauptbahnhof, then keep left at the fork and follow the signs for the A1 motorway towards Bern. Continue for 12 km, then take exit 47 (Härkingen) and turn left onto the cantonal road. Traffic is light."),
        (.date, "20240611T081530"),
        (.positiveActionLabel, "Open"),
    ]
    static let response = Phone.notificationAttributes(uid: uid, attributes)

    static func expectedResponse() -> DataSourceResponse {
        DataSourceResponse(attributes: attributes.map { .init(id: $0.0.rawValue, value: Array($0.1.utf8)) })
    }

    /// Feeds fragments; expects completion exactly with the last one.
    func reassemble(_ fragments: [[UInt8]]) -> DataSourceResponse? {
        var r = DataSourceReassembler(expecting: Self.expectation)
        for (i, fragment) in fragments.enumerated() {
            let progress = r.feed(fragment)
            if i < fragments.count - 1 {
                guard progress == .needMore else { return nil }
            } else if case .complete(let response) = progress {
                return response
            }
        }
        return nil
    }

    @Test func responseIsLargerThanOneNotification() {
        #expect(Self.response.count > 182)
        #expect(Self.response.count < 2 * 182)
    }

    @Test(arguments: [20, 182])
    func splitAtEveryByteBoundaryForThisMTU(payload: Int) {
        // Fragments of `payload` bytes (ATT_MTU 23 or 185), with the first
        // fragment 1...payload bytes long: every byte boundary of the
        // response falls between two fragments in some run, including inside
        // the header, an attribute ID, a length and a value.
        for first in 1...payload {
            let fragments = Phone.fragments(Self.response, payload: payload, first: first)
            #expect(reassemble(fragments) == Self.expectedResponse(), "first fragment \(first) bytes")
        }
    }

    @Test func everyTwoWaySplit() {
        for cut in 1..<Self.response.count {
            let fragments = [Array(Self.response[..<cut]), Array(Self.response[cut...])]
            #expect(reassemble(fragments) == Self.expectedResponse(), "cut at \(cut)")
        }
    }

    @Test func oneByteAtATime() {
        #expect(reassemble(Self.response.map { [$0] }) == Self.expectedResponse())
    }

    @Test func zeroLengthAttributesIncludingTheLastOne() {
        let command = ControlPointCommand.getNotificationAttributes(NotificationUID(9), [
            NotificationAttributeRequest(.title, maxLength: 64), NotificationAttributeRequest(.subtitle, maxLength: 64),
            NotificationAttributeRequest(.message, maxLength: 256),
        ])
        let bytes = Phone.notificationAttributes(uid: 9, [(.title, ""), (.subtitle, ""), (.message, "")])
        #expect(bytes.count == 5 + 9)
        for cut in 1..<bytes.count {
            var r = DataSourceReassembler(expecting: command.expectedResponse(sanityLimit: 512)!)
            #expect(r.feed(Array(bytes[..<cut])) == .needMore)
            #expect(r.feed(Array(bytes[cut...])) == .complete(DataSourceResponse(attributes: [
                .init(id: 1, value: []), .init(id: 2, value: []), .init(id: 3, value: []),
            ])))
        }
    }

    @Test func attributesInAnotherOrderThanAsked() {
        let reversed = Phone.notificationAttributes(uid: Self.uid, Self.attributes.reversed())
        var r = DataSourceReassembler(expecting: Self.expectation)
        guard case .complete(let response) = r.feed(reversed) else {
            Issue.record("not complete")
            return
        }
        #expect(response.value(of: 1) == Array("In 300 m, turn right".utf8))
        #expect(response.value(of: 5) == Array("20240611T081530".utf8))
    }

    @Test func appAttributesSplitInsideTheAppIdentifier() {
        let command = ControlPointCommand.getAppAttributes(AppIdentifier("com.google.Maps"), [.displayName])
        let bytes = Phone.appAttributes(app: "com.google.Maps", displayName: "Google Maps")
        for cut in 1..<bytes.count {
            var r = DataSourceReassembler(expecting: command.expectedResponse(sanityLimit: 512)!)
            #expect(r.feed(Array(bytes[..<cut])) == .needMore)
            #expect(r.feed(Array(bytes[cut...])) == .complete(DataSourceResponse(attributes: [
                .init(id: 0, value: Array("Google Maps".utf8)),
            ])))
        }
    }

    // MARK: - Responses that are not ours

    @Test func wrongCommandIsDiscardedAndTheRightOneStillAccepted() {
        var r = DataSourceReassembler(expecting: Self.expectation)
        let appResponse = Phone.appAttributes(app: "com.google.Maps", displayName: "Maps")
        guard case .discarded = r.feed(appResponse) else { Issue.record("not discarded"); return }
        #expect(!r.isInsideResponse)
        guard case .complete = r.feed(Self.response) else { Issue.record("not complete"); return }
    }

    @Test func wrongUIDIsDiscardedEvenWhenTheHeaderIsSplit() {
        let other = Phone.notificationAttributes(uid: Self.uid + 1, Self.attributes)
        var r = DataSourceReassembler(expecting: Self.expectation)
        // The first fragment ends inside the UID (its first byte differs from ours
        // only in the lowest byte, which comes first: cut after it to test the split).
        #expect(r.feed(Array(other[..<1])) == .needMore)
        guard case .discarded(let reason) = r.feed(Array(other[1..<20])) else { Issue.record("not discarded"); return }
        #expect(reason == "a response for another NotificationUID")
        // A stray continuation of that response is discarded too.
        guard case .discarded = r.feed(Array(other[20..<40])) else { Issue.record("not discarded"); return }
        #expect(reassembleAfter(&r) == Self.expectedResponse())
    }

    @Test func aStrayPartialHeaderDoesNotSwallowTheRealStart() {
        var r = DataSourceReassembler(expecting: Self.expectation)
        // Looks like the start of our response, then stops.
        #expect(r.feed([0x00, 0x34]) == .needMore)
        // The real response arrives whole: the stale bytes are dropped, it is taken.
        #expect(reassembleAfter(&r) == Self.expectedResponse())
    }

    @Test func wrongAppIsDiscarded() {
        let command = ControlPointCommand.getAppAttributes(AppIdentifier("com.google.Maps"), [.displayName])
        var r = DataSourceReassembler(expecting: command.expectedResponse(sanityLimit: 512)!)
        guard case .discarded(let reason) = r.feed(Phone.appAttributes(app: "com.apple.Maps", displayName: "Maps")) else {
            Issue.record("not discarded")
            return
        }
        #expect(reason == "a response for another app")
    }

    // MARK: - Malformed responses

    @Test func truncatedResponseNeverCompletes() {
        var r = DataSourceReassembler(expecting: Self.expectation)
        for fragment in Phone.fragments(Array(Self.response.dropLast(3)), payload: 20) {
            #expect(r.feed(fragment) == .needMore)
        }
        #expect(r.isInsideResponse) // the client's timeout gives up on it
    }

    @Test func overlongDeclaredLengthIsMalformed() {
        var bytes: [UInt8] = [0x00, 0x34, 0x12, 0x00, 0x00]
        bytes += [0x01, 0xFF, 0xFF] // Title claims 65535 bytes; we asked for 64
        var r = DataSourceReassembler(expecting: Self.expectation)
        guard case .malformed(let reason) = r.feed(bytes) else { Issue.record("not malformed"); return }
        #expect(reason == "attribute 1 declares 65535 bytes, more than the 256 allowed")
    }

    @Test func attributeNotAskedForOrTwiceIsMalformed() {
        var r = DataSourceReassembler(expecting: Self.expectation)
        guard case .malformed = r.feed(Phone.notificationAttributes(uid: Self.uid, [(.appIdentifier, "x")])) else {
            Issue.record("not malformed")
            return
        }
        var twice = DataSourceReassembler(expecting: Self.expectation)
        guard case .malformed = twice.feed(Phone.notificationAttributes(uid: Self.uid, [(.title, "a"), (.title, "b")])) else {
            Issue.record("not malformed")
            return
        }
    }

    @Test func bytesAfterTheLastAttributeAreIgnored() {
        var r = DataSourceReassembler(expecting: Self.expectation)
        #expect(r.feed(Self.response + [0xAA, 0xBB]) == .complete(Self.expectedResponse()))
        guard case .discarded = r.feed(Self.response) else { Issue.record("a finished reassembler took more"); return }
    }

    private func reassembleAfter(_ r: inout DataSourceReassembler) -> DataSourceResponse? {
        var last: DataSourceProgress = .needMore
        for fragment in Phone.fragments(Self.response, payload: 20) { last = r.feed(fragment) }
        if case .complete(let response) = last { return response }
        return nil
    }
}
