import XCTest
@testable import JSON

private func parse(_ text: String, limits: JSONLimits = .standard) throws(JSONError) -> JSONValue {
    try JSONParser.parse(Array(text.utf8), limits: limits)
}

private func parseError(_ bytes: [UInt8], limits: JSONLimits = .standard) -> JSONError? {
    do throws(JSONError) {
        _ = try JSONParser.parse(bytes, limits: limits)
        return nil
    } catch {
        return error
    }
}

final class JSONParserTests: XCTestCase {
    /// The two examples of RFC 8259 §13.
    func testRFC8259Examples() throws {
        let image = try parse("""
        {
          "Image": {
              "Width":  800,
              "Height": 600,
              "Title":  "View from 15th Floor",
              "Thumbnail": {
                  "Url":    "http://www.example.com/image/481989943",
                  "Height": 125,
                  "Width":  100
              },
              "Animated" : false,
              "IDs": [116, 943, 234, 38793]
            }
        }
        """)
        let inner = try image.object("Image")
        XCTAssertEqual(try inner.int("Width"), 800)
        XCTAssertEqual(try inner.string("Title"), "View from 15th Floor")
        XCTAssertEqual(try inner.object("Thumbnail").string("Url"), "http://www.example.com/image/481989943")
        XCTAssertEqual(try inner.optionalBool("Animated"), false)
        XCTAssertEqual(try inner.optionalArray("IDs"), [116, 943, 234, 38793].map { .number(JSONNumber($0)) })

        let places = try parse("""
        [
          {
             "precision": "zip",
             "Latitude":  37.7668,
             "Longitude": -122.3959,
             "Address":   "",
             "City":      "SAN FRANCISCO",
             "State":     "CA",
             "Zip":       "94107",
             "Country":   "US"
          },
          {
             "precision": "zip",
             "Latitude":  37.371991,
             "Longitude": -122.026020,
             "Address":   "",
             "City":      "SUNNYVALE",
             "State":     "CA",
             "Zip":       "94085",
             "Country":   "US"
          }
        ]
        """)
        guard case .array(let items) = places, items.count == 2 else { return XCTFail("not two places") }
        XCTAssertEqual(try items[0].double("Latitude"), 37.7668)
        XCTAssertEqual(try items[1].double("Longitude"), -122.026020)
        XCTAssertEqual(try items[1].string("City"), "SUNNYVALE")
        // RFC 8259 §2: any value may be the whole text.
        XCTAssertEqual(try parse("\"Hello world!\""), .string("Hello world!"))
        XCTAssertEqual(try parse("42"), .number(JSONNumber(42)))
        XCTAssertEqual(try parse("true"), .bool(true))
    }

    /// Inputs a parser must accept (JSONTestSuite's y_ cases, written here as data).
    func testAccepted() {
        let accepted: [(String, String)] = [
            ("y_array_empty", "[]"),
            ("y_array_nested", "[[[]]]"),
            ("y_object_empty", "{}"),
            ("y_object_duplicated_key", #"{"a":"b","a":"c"}"#),
            ("y_object_escaped_null_in_key", #"{"foo\u0000bar": 42}"#),
            ("y_number_negative_zero", "[-0]"),
            ("y_number_real_capital_e_pos_exp", "[1E+2]"),
            ("y_number_real_fraction_exponent", "[123.456e78]"),
            ("y_number_after_space", "[ 4]"),
            ("y_string_escaped_solidus", #"["\/"]"#),
            ("y_string_allowed_escapes", #"["\"\\\/\b\f\n\r\t"]"#),
            ("y_string_surrogates_U+1D11E", #"["\uD834\uDd1e"]"#),
            ("y_string_utf8", "[\"€𝄞\"]"),
            ("y_string_nonchar", #"["\uFFFF"]"#),
            ("y_string_with_del_character", "[\"a\u{7F}a\"]"),
            ("y_structure_whitespace_array", " [] "),
            ("y_structure_lonely_null", "null"),
            ("y_structure_trailing_newline", "[\"a\"]\n"),
        ]
        for (name, text) in accepted {
            XCTAssertNil(parseError(Array(text.utf8)), name)
        }
    }

    /// Inputs a parser must refuse (JSONTestSuite's n_ cases), with the problem found.
    func testRefused() {
        let refused: [(String, [UInt8], JSONError)] = [
            ("n_array_extra_comma", Array("[\"\",]".utf8), .syntax(.unexpectedByte(0x5D), at: 4)),
            ("n_array_unclosed", Array("[1".utf8), .syntax(.unexpectedEnd, at: 2)),
            ("n_object_trailing_comma", Array(#"{"id":0,}"#.utf8), .syntax(.unexpectedByte(0x7D), at: 8)),
            ("n_object_unquoted_key", Array("{a: 1}".utf8), .syntax(.unexpectedByte(0x61), at: 1)),
            ("n_object_missing_colon", Array(#"{"a" b}"#.utf8), .syntax(.unexpectedByte(0x62), at: 5)),
            ("n_number_leading_zero", Array("[012]".utf8), .syntax(.unexpectedByte(0x31), at: 2)),
            ("n_number_plus", Array("[+1]".utf8), .syntax(.unexpectedByte(0x2B), at: 1)),
            ("n_number_dot_only_fraction", Array("[1.]".utf8), .syntax(.invalidNumber, at: 1)),
            ("n_number_exponent_empty", Array("[1e]".utf8), .syntax(.invalidNumber, at: 1)),
            ("n_number_NaN", Array("[NaN]".utf8), .syntax(.unexpectedByte(0x4E), at: 1)),
            ("n_number_minus_only", Array("[-]".utf8), .syntax(.invalidNumber, at: 1)),
            ("n_string_single_quote", Array("['a']".utf8), .syntax(.unexpectedByte(0x27), at: 1)),
            ("n_string_unescaped_tab", Array("[\"\t\"]".utf8), .syntax(.controlCharacterInString, at: 2)),
            ("n_string_escape_x", Array(#"["\x00"]"#.utf8), .syntax(.invalidEscape, at: 2)),
            ("n_string_incomplete_unicode", Array(#"["\u00A"]"#.utf8), .syntax(.invalidEscape, at: 2)),
            ("n_string_lone_low_surrogate", Array(#"["\uDd1e"]"#.utf8), .syntax(.unpairedSurrogate, at: 2)),
            ("n_string_lone_high_surrogate", Array(#"["\uD834x"]"#.utf8), .syntax(.unpairedSurrogate, at: 2)),
            ("n_string_high_then_high", Array(#"["\uD834\uD834"]"#.utf8), .syntax(.unpairedSurrogate, at: 2)),
            ("n_string_invalid_utf8", [0x5B, 0x22, 0xFF, 0x22, 0x5D], .syntax(.invalidUTF8, at: 2)),
            ("n_string_overlong_utf8", [0x5B, 0x22, 0xC0, 0xAF, 0x22, 0x5D], .syntax(.invalidUTF8, at: 2)),
            ("n_string_utf8_surrogate", [0x5B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x5D], .syntax(.invalidUTF8, at: 2)),
            ("n_string_truncated_utf8", [0x5B, 0x22, 0xE2, 0x82], .syntax(.invalidUTF8, at: 2)),
            ("n_string_unclosed", Array("[\"abc".utf8), .syntax(.unexpectedEnd, at: 5)),
            ("n_structure_trailing_garbage", Array("[1]x".utf8), .syntax(.trailingBytes, at: 3)),
            ("n_structure_two_values", Array("{} {}".utf8), .syntax(.trailingBytes, at: 3)),
            ("n_structure_empty", [], .syntax(.unexpectedEnd, at: 0)),
            ("n_structure_capitalized_True", Array("[True]".utf8), .syntax(.unexpectedByte(0x54), at: 1)),
            ("n_structure_truncated_literal", Array("[tru]".utf8), .syntax(.invalidLiteral, at: 1)),
            ("n_structure_comment", Array("[1/*x*/]".utf8), .syntax(.unexpectedByte(0x2F), at: 2)),
            ("n_structure_bom", [0xEF, 0xBB, 0xBF, 0x7B, 0x7D], .syntax(.unexpectedByte(0xEF), at: 0)),
        ]
        for (name, bytes, expected) in refused {
            XCTAssertEqual(parseError(bytes), expected, name)
        }
    }

    func testEscapesDecodeToTheRightCharacters() throws {
        XCTAssertEqual(try parse(#""a\/b""#), .string("a/b"))
        XCTAssertEqual(try parse(#""\u00e9\u20AC\ud834\udd1e""#), .string("é€𝄞"))
        XCTAssertEqual(try parse(#""\b\f\n\r\t\"\\""#), .string("\u{8}\u{C}\n\r\t\"\\"))
        XCTAssertEqual(try parse(#""\u0000""#), .string("\u{0}"))
    }

    func testLimits() {
        let deep = String(repeating: "[", count: 5) + String(repeating: "]", count: 5)
        let tight = JSONLimits(maxSize: 100, maxDepth: 4, maxElements: 10)
        XCTAssertEqual(parseError(Array(deep.utf8), limits: tight), .limit(.depth, at: 4))
        XCTAssertNil(parseError(Array("[[[[]]]]".utf8), limits: tight))
        XCTAssertEqual(parseError(Array("[1,2,3,4,5,6,7,8,9,10]".utf8), limits: tight), .limit(.elements, at: 19))
        XCTAssertEqual(parseError([UInt8](repeating: 0x20, count: 101), limits: tight), .limit(.size, at: 100))
        // The standard limits stop a hostile nesting long before the stack would.
        let hostile = [UInt8](repeating: 0x5B, count: 100_000)
        XCTAssertEqual(parseError(hostile), .limit(.depth, at: 32))
    }

    func testNumbers() throws {
        XCTAssertEqual(JSONNumber(validated: "-12").int, -12)
        XCTAssertEqual(JSONNumber(validated: "9223372036854775807").int, Int.max)
        XCTAssertNil(JSONNumber(validated: "9223372036854775808").int)
        XCTAssertNil(JSONNumber(validated: "1.5").int)
        XCTAssertEqual(JSONNumber(validated: "1.5").double, 1.5)
        XCTAssertEqual(JSONNumber(validated: "-0.000123").double, -0.000123)
        XCTAssertEqual(JSONNumber(validated: "1E+2").double, 100)
        XCTAssertEqual(JSONNumber(validated: "2.5e-3").double, 0.0025)
        XCTAssertEqual(JSONNumber(validated: "0").double, 0)
        // A date as JSONEncoder writes it: seconds since 2001 with microseconds.
        XCTAssertEqual(JSONNumber(validated: "785000000.123456").double, 785000000.123456)
        XCTAssertEqual(JSONNumber(validated: "12345678901234567890123").double, 1.2345678901234568e22)
        XCTAssertEqual(JSONNumber(validated: "1e400").double, .infinity)
    }

    func testTypedAccessNamesTheKey() throws {
        let json = try parse(#"{"s":"x","n":3,"b":true,"z":null,"f":1.5,"unknown":[1]}"#)
        XCTAssertEqual(try json.string("s"), "x")
        XCTAssertNil(try json.optionalString("z"), "null is absent")
        XCTAssertNil(try json.optionalString("missing"))
        XCTAssertThrowsError(try json.string("n")) { error in
            XCTAssertEqual(error as? JSONError, .wrongType(key: "n", expected: .string, found: .number))
        }
        XCTAssertThrowsError(try json.int("missing")) { error in
            XCTAssertEqual(error as? JSONError, .missing(key: "missing"))
        }
        XCTAssertThrowsError(try json.int("f")) { error in
            XCTAssertEqual(error as? JSONError, .invalidValue(key: "f", reason: "is not an integer: 1.5"))
        }
        XCTAssertThrowsError(try json.optionalBool("s"))
        XCTAssertEqual("\(JSONError.wrongType(key: "n", expected: .string, found: .number))", #"JSON: "n" is a number, expected a string"#)
    }

    func testWriterIsCompactAndRoundTrips() throws {
        let value = JSONValue.object([
            JSONMember("kind", .string("notifbridge.accepted.v1")),
            JSONMember("text", .string("quote \" back\\slash\nline é")),
            JSONMember("n", .number(JSONNumber(3))),
            JSONMember("list", .array([.bool(true), .null])),
        ])
        let text = String(decoding: value.encoded, as: UTF8.self)
        XCTAssertEqual(text, #"{"kind":"notifbridge.accepted.v1","text":"quote \" back\\slash\nline é","n":3,"list":[true,null]}"#)
        XCTAssertEqual(try JSONParser.parse(value.encoded), value)
    }
}
