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

    /// Every byte that needs an escape, at every place of a line longer than
    /// the eight bytes checked at a time, next to plain ASCII and to bytes of
    /// multi-byte characters: escaped exactly as one byte at a time would.
    @Test func everyEscapeAtEveryPlace() {
        func reference(_ s: String) -> [UInt8] {
            var out: [UInt8] = [0x22]
            for b in s.utf8 {
                switch b {
                case 0x22: out += [0x5C, 0x22]
                case 0x5C: out += [0x5C, 0x5C]
                case 0x0A: out += [0x5C, 0x6E]
                case 0x0D: out += [0x5C, 0x72]
                case 0x09: out += [0x5C, 0x74]
                case 0..<0x20, 0x7F: out += Array("\\u00".utf8) + Array(hex(b, digits: 2).utf8)
                default: out.append(b)
                }
            }
            return out + [0x22]
        }
        let special: [Unicode.Scalar] = ["\u{0}", "\u{1}", "\t", "\n", "\r", "\u{1F}", "\"", "\\", "\u{7F}"]
        let plain = Array("Turn left onto Market St é → 🚗 and keep going".unicodeScalars)
        for c in special {
            for place in 0...plain.count {
                var scalars = plain
                scalars.insert(c, at: place)
                var text = ""
                text.unicodeScalars.append(contentsOf: scalars)
                var out: [UInt8] = []
                JSONLine.appendString(text, to: &out)
                #expect(out == reference(text), "\(c.value) at \(place)")
            }
        }
    }

    /// The exact layout the event log's readers see: `{"name": value, ...}`,
    /// numbers in decimal, negative ones and milliunits included.
    @Test func layoutOfEveryKindOfField() {
        var j = JSONLine()
        j.field("n", 0)
        j.field("t_ms", Int64(-9_223_372_036_854_775_807))
        j.field("big", Int64.max)
        j.field("none", nil as Int?)
        j.field("off", false)
        j.field("s", milliunits: -1_005)
        j.field("d", milliunits: nil)
        #expect(j.line == "{\"n\": 0, \"t_ms\": -9223372036854775807, \"big\": 9223372036854775807, \"none\": null, "
            + "\"off\": false, \"s\": -1.005, \"d\": null}")
        #expect(JSONLine().line == "{}")
    }

    /// A word of the log's own is written as the same text as a string
    /// would be, as the first field or after others, empty or not.
    @Test func aWordIsWrittenAsItsStringWouldBe() {
        var words = JSONLine(), strings = JSONLine()
        words.field("event", word: "notification")
        strings.field("event", "notification")
        words.field("n", 3)
        strings.field("n", 3)
        words.field("maneuver", word: "slight_right")
        strings.field("maneuver", "slight_right")
        words.field("e", word: "")
        strings.field("e", "")
        words.field("x", word: "y")
        strings.field("x", "y")
        #expect(words.line == strings.line)
        #expect(words.line == "{\"event\": \"notification\", \"n\": 3, \"maneuver\": \"slight_right\", \"e\": \"\", \"x\": \"y\"}")
    }

    /// Text of every length from none to several words, plain (stored as
    /// it is checked, eight bytes at a time, the last eight overlapping)
    /// or with an escape in its last byte, is written whole and in quotes,
    /// and the field after it starts right after the closing quote.
    @Test func textOfEveryLengthIsWrittenWhole() {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789 éü→".unicodeScalars)
        for length in 0...40 {
            for escapedLast in [false, true] {
                var text = ""
                text.unicodeScalars.append(contentsOf: alphabet.prefix(length))
                if escapedLast { text += "\"" }
                var j = JSONLine()
                j.field("s", text)
                j.field("n", 1)
                let quoted = text.replacingOccurrences(of: "\"", with: "\\\"")
                #expect(j.line == "{\"s\": \"\(quoted)\", \"n\": 1}", "length \(length), escaped last \(escapedLast)")
            }
        }
    }

    /// Lines built one after another in one value (as the event log batches
    /// a wake-up's lines) are the same bytes as each built alone, each with
    /// its line break; the value starts over afterwards.
    @Test func severalLinesInOneValue() {
        func alone(_ i: Int) -> [UInt8] {
            var j = JSONLine()
            j.field("i", i)
            j.field("text", String(repeating: "é\"x", count: i * 40))
            return j.utf8Line + [0x0A]
        }
        var lines = JSONLine()
        for i in 0..<5 {
            if i > 0 { lines.nextLine() }
            lines.field("i", i)
            lines.field("text", String(repeating: "é\"x", count: i * 40))
        }
        let written = lines.takeLines { Array($0) }
        #expect(written == (0..<5).flatMap(alone))
        lines.field("i", 0)
        lines.field("text", "")
        #expect(lines.takeLines { Array($0) } == alone(0))
    }

    /// A copy is a value of its own: filling one leaves the other as it was.
    @Test func aCopyIsAValueOfItsOwn() {
        var a = JSONLine()
        a.field("event", "state")
        var b = a
        b.field("state", "connected")
        a.field("state", "idle")
        #expect(a.line == "{\"event\": \"state\", \"state\": \"idle\"}")
        #expect(b.line == "{\"event\": \"state\", \"state\": \"connected\"}")
    }
}
