import XCTest
import BluetoothCore
import JSON
@testable import NotifBridge

/// The two ways the app's writer sends a frame on the notifications
/// characteristic, and frames up to the app's limits.
final class WriterFormsTests: XCTestCase {
    /// A writer without the receipts characteristic sends plain values:
    /// START, slices of its maximum write length (512), END; no NBW1, no acks.
    func testUnwrappedValuesAreAFrameToo() {
        let h = Harness()
        h.key(1)
        h.clear()
        let frame = h.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10), exchange: 1, receipt: 51)
        for value in TestPhone.values(frame, size: 512) { h.receiver.written(.notifications, value: value, now: h.now) }
        h.drain()
        XCTAssertEqual(h.events.count, 1)
        XCTAssertEqual(h.acks, [], "nothing to acknowledge without a chunk id")
        XCTAssertEqual(h.frameTexts, [Harness.receipt(51)])
    }

    /// Inside an unwrapped frame a slice that happens to begin with `NBW1`
    /// is content; a wrapped START still begins a wrapped frame.
    func testInsideAnUnwrappedFrameOnlyAWrappedStartIsAChunk() {
        let h = Harness()
        h.key(1)
        h.clear()
        let envelope = String(decoding: h.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10), exchange: 1, receipt: 51), as: UTF8.self)
        let tail = #","note":"NBW1ABCDEFGHIJKLMNOP and more"}"#
        let text = Array(String(envelope.dropLast()).utf8)
        for value in [FrameToken.start, text, Array(tail.utf8.prefix(9)), Array(tail.utf8.dropFirst(9)), FrameToken.end] {
            h.receiver.written(.notifications, value: value, now: h.now)
        }
        h.drain()
        XCTAssertEqual(h.events.count, 1, "the slice starting NBW1 was taken as content")
        XCTAssertEqual(h.acks, [])
        // A wrapped frame after it, and a wrapped START in the middle of an unwrapped frame.
        h.receiver.written(.notifications, value: FrameToken.start, now: h.now)
        h.receiver.written(.notifications, value: Array("{\"half".utf8), now: h.now)
        let next = h.phone.envelope(TestPhone.event("update", id: 2, sentAt: 20, title: "Keep right"), exchange: 1, receipt: 52)
        h.writeEnvelope(next)
        XCTAssertEqual(h.events.count, 2)
        XCTAssertEqual(h.frameTexts.last, Harness.receipt(52))
    }

    /// The app allows 16 attachments of 256 KiB in a 4 MiB event: over the
    /// 1 MiB bound the frame is not kept, but it is acknowledged chunk by
    /// chunk and receipted, and the next notification goes through.
    func testAFrameOverTheBoundIsReceiptedAndDropped() {
        let h = Harness()
        h.key(1)
        h.clear()
        let attachment = Base64.encode([UInt8](repeating: 0xA5, count: 800 * 1024))
        let big = #"{"version":3,"id":"E1","kind":"add","notification":{"sourceIdentifier":"com.google.Maps","notificationIdentifier":"n1","title":"big","attachments":[{"id":"A1B2C3D4-E5F6-4A7B-8C9D-0E1F2A3B4C5D","uti":"public.jpeg","data":""#
            + attachment + #""}]},"sentAt":10}"#
        let frame = h.phone.envelope(Array(big.utf8), exchange: 1, receipt: 77)
        XCTAssertGreaterThan(frame.count, FrameAssembler.notificationCapacity)
        let values = TestPhone.wrapped(frame, firstChunk: 1)
        for value in values { h.receiver.written(.notifications, value: value, now: h.now) }
        h.drain()
        XCTAssertEqual(h.events, [])
        XCTAssertEqual(h.acks.count, values.count, "every chunk acknowledged")
        XCTAssertEqual(h.frameTexts, [Harness.receipt(77)], "the sender is answered, not left to retry")
        h.writeEnvelope(h.phone.envelope(TestPhone.event("add", id: 2, sentAt: 20, notification: 2, title: "Keep right"), exchange: 1, receipt: 78))
        XCTAssertEqual(h.events.count, 1)

        // Below the bound, a notification with icons and attachments is shown.
        let small = #"{"version":3,"id":"E3","kind":"add","notification":{"sourceIdentifier":"com.google.Maps","notificationIdentifier":"n3","title":"icons","sourceIcon":""#
            + Base64.encode([UInt8](repeating: 1, count: 64 * 1024)) + #"","attachments":[{"uti":"public.png","data":""#
            + Base64.encode([UInt8](repeating: 2, count: 256 * 1024)) + #""}]},"sentAt":30}"#
        h.writeEnvelope(h.phone.envelope(Array(small.utf8), exchange: 1, receipt: 79))
        XCTAssertEqual(h.events.count, 2)
        guard case .add(let n)? = h.events.last else { return XCTFail("not shown") }
        XCTAssertEqual(n.attachments.map { $0.byteCount }, [256 * 1024])
        XCTAssertEqual(n.sourceIconBytes, 64 * 1024)
    }
}
