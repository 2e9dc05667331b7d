import XCTest
@testable import NotifBridge

final class FrameAssemblerTests: XCTestCase {
    private func bytes(_ s: String) -> ArraySlice<UInt8> { Array(s.utf8)[...] }

    func testAFrameIsWhatLiesBetweenStartAndEnd() {
        var a = FrameAssembler(channel: "test", capacity: 100)
        XCTAssertEqual(a.take(bytes("--START--")), .taken)
        XCTAssertEqual(a.take(bytes("ab")), .taken)
        XCTAssertEqual(a.take(bytes("cd")), .taken)
        XCTAssertEqual(a.take(bytes("--END--")), .frame(Array("abcd".utf8)))
        XCTAssertFalse(a.isAssembling)
        // An empty frame is a frame.
        XCTAssertEqual(a.take(bytes("--START--")), .taken)
        XCTAssertEqual(a.take(bytes("--END--")), .frame([]))
    }

    func testStartInTheMiddleStartsAgain() {
        var a = FrameAssembler(channel: "test", capacity: 100)
        _ = a.take(bytes("--START--"))
        _ = a.take(bytes("lost"))
        XCTAssertEqual(a.take(bytes("--START--")), .taken)
        _ = a.take(bytes("kept"))
        XCTAssertEqual(a.take(bytes("--END--")), .frame(Array("kept".utf8)))
    }

    func testEndOrContentWithoutStartIsDropped() {
        var a = FrameAssembler(channel: "test", capacity: 100)
        XCTAssertEqual(a.take(bytes("--END--")), .dropped)
        XCTAssertEqual(a.take(bytes("stray")), .dropped)
        // Tokens are whole values: a value that only starts with one is content.
        _ = a.take(bytes("--START--"))
        XCTAssertEqual(a.take(bytes("--END--x")), .taken)
        XCTAssertEqual(a.take(bytes("--END--")), .frame(Array("--END--x".utf8)))
    }

    func testAFrameOverTheCapacityIsFollowedToItsEndAndNotKept() {
        var a = FrameAssembler(channel: "test", capacity: 8)
        _ = a.take(bytes("--START--"))
        XCTAssertEqual(a.take(bytes("12345678")), .taken)
        XCTAssertEqual(a.take(bytes("9")), .taken)
        XCTAssertTrue(a.isAssembling, "followed to its END, so its sender gets an answer")
        XCTAssertEqual(a.take(bytes("more")), .taken)
        XCTAssertEqual(a.take(bytes("--END--")), .oversized(byteCount: 13, receipt: nil))
        XCTAssertEqual(a.take(bytes("--END--")), .dropped)
        // The next frame is whole again.
        _ = a.take(bytes("--START--"))
        _ = a.take(bytes("ok"))
        XCTAssertEqual(a.take(bytes("--END--")), .frame(Array("ok".utf8)))
    }

    func testReverseFramesAreSlicedToTheValueSize() {
        let payload = Array(0..<50).map { UInt8($0) }
        let values = frameValues(payload, maxValue: 20)
        XCTAssertEqual(values.first, FrameToken.start)
        XCTAssertEqual(values.last, FrameToken.end)
        XCTAssertEqual(values.dropFirst().dropLast().map { $0.count }, [20, 20, 10])
        XCTAssertEqual(Array(values.dropFirst().dropLast().joined()), payload)
    }

    /// A 20-byte value starting NBA1 is an ack to the phone: no slice may look like one.
    func testNoSliceLooksLikeAnAck() {
        let payload = Array("0123456789abcdefghij".utf8) + Array("NBA1".utf8) + [UInt8](repeating: 0x41, count: 16) + [0x42]
        let values = frameValues(payload, maxValue: 20)
        XCTAssertFalse(values.contains(where: ChunkAck.isAck))
        XCTAssertEqual(Array(values.dropFirst().dropLast().joined()), payload)
        XCTAssertTrue(ChunkAck.isAck(Array("NBA1".utf8) + [UInt8](repeating: 0, count: 16)))
    }

    func testChunkWrapper() throws {
        let id = [UInt8](repeating: 0xAB, count: 16)
        let chunk = try XCTUnwrap(WrappedChunk(Array("NBW1".utf8) + id + Array("--START--".utf8)))
        XCTAssertEqual(chunk.id.bytes, id)
        XCTAssertEqual(Array(chunk.inner), Array("--START--".utf8))
        XCTAssertEqual(ChunkAck.value(for: chunk.id), Array("NBA1".utf8) + id)
        XCTAssertNil(WrappedChunk(Array("NBW1".utf8) + [UInt8](repeating: 0, count: 15)), "too short for an id")
        XCTAssertNil(WrappedChunk(Array("NBW2".utf8) + id + [1]))
        // An empty inner value is still a chunk.
        XCTAssertEqual(WrappedChunk(Array("NBW1".utf8) + id)?.inner.count, 0)
    }

    /// The app's envelope as JSONEncoder writes it: `receiptID` after the
    /// long `data`, `/` escaped in the base64.
    func testTheReceiptOfAnOversizedEnvelopeIsFoundWithoutKeepingIt() {
        var a = FrameAssembler(channel: "test", capacity: 64)
        let envelope = #"{"sessionID":"5D1F0C3A-1111-4222-8333-444455556666","data":"AB\/+"#
            + String(repeating: "QUJD", count: 100) + #"\/w==","receiptID":"0A4F7E1C-0000-4000-8000-000000000002"}"#
        _ = a.take(bytes("--START--"))
        for value in TestPhone.values(Array(envelope.utf8), size: 37).dropFirst().dropLast() { XCTAssertEqual(a.take(value[...]), .taken) }
        XCTAssertEqual(a.take(bytes("--END--")),
                       .oversized(byteCount: envelope.utf8.count, receipt: ReceiptID(uuidFromText("0A4F7E1C-0000-4000-8000-000000000002")!)))
        // A receiptID inside a nested object or inside a string is not the envelope's.
        for text in [#"{"x":{"receiptID":"0A4F7E1C-0000-4000-8000-000000000002"},"data":""# + String(repeating: "A", count: 80) + #""}"#,
                     #"{"data":"\"receiptID\":\"0A4F7E1C-0000-4000-8000-000000000002"# + String(repeating: "A", count: 80) + #""}"#] {
            _ = a.take(bytes("--START--"))
            _ = a.take(Array(text.utf8)[...])
            XCTAssertEqual(a.take(bytes("--END--")), .oversized(byteCount: text.utf8.count, receipt: nil), text)
        }
    }
}
