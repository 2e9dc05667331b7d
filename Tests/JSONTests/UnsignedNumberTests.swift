import JSON
import Testing

/// UInt64 members (GhostDrop's sequences and NACK bitmaps) reach past Int.max.
@Suite struct UnsignedNumberTests {
    @Test func writesAndReadsTheWholeRange() throws {
        for value: UInt64 in [0, 1, UInt64(Int.max) + 1, UInt64.max] {
            let bytes = JSONValue.object([JSONMember("n", .number(JSONNumber(value)))]).encoded
            #expect(String(decoding: bytes, as: UTF8.self) == "{\"n\":\(value)}")
            #expect(try JSONParser.parse(bytes)["n"].flatMap { if case .number(let n) = $0 { return n.uint64 } else { return nil } } == value)
        }
    }

    @Test func refusesWhatIsNotAnUnsignedInteger() throws {
        for text in ["-1", "1.0", "1e3", "18446744073709551616"] {
            let value = try JSONParser.parse(Array("{\"n\":\(text)}".utf8))
            guard case .number(let n)? = value["n"] else { Issue.record("no number"); continue }
            #expect(n.uint64 == nil, "\(text)")
        }
    }
}
