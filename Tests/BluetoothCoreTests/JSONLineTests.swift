import Foundation
import Testing
@testable import BluetoothCore

@Suite struct JSONLineTests {
    @Test func producesValidJSONThatFoundationReadsBack() throws {
        var j = JSONLine()
        j.field("t_ms", Int64(1234))
        j.field("event", "notification")
        j.field("title", "Turn \"left\"\n\u{01}onto Straße → 🚗")
        j.field("message", nil as String?)
        j.field("mitm", true)
        j.field("elapsed_s", milliunits: 61_250)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(j.line.utf8)) as? [String: Any])
        #expect(object["t_ms"] as? Int == 1234)
        #expect(object["title"] as? String == "Turn \"left\"\n\u{01}onto Straße → 🚗")
        #expect(object["message"] is NSNull)
        #expect(object["mitm"] as? Bool == true)
        #expect(object["elapsed_s"] as? Double == 61.25)
        #expect(!j.line.contains("\n"))
    }

    /// Strings with nothing to escape take the whole-string path; each
    /// character that needs escaping still gets it, wherever it is.
    @Test func plainAndEscapedStrings() {
        var j = JSONLine()
        j.field("plain", "Turn left onto Market Street → 🚗")
        j.field("quote", "\"")
        j.field("tail", "ok\u{7F}")
        #expect(j.line == "{\"plain\": \"Turn left onto Market Street → 🚗\", \"quote\": \"\\\"\", \"tail\": \"ok\\u007f\"}")
    }
}
