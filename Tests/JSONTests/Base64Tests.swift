import XCTest
@testable import JSON

final class Base64Tests: XCTestCase {
    /// RFC 4648 §10.
    func testRFC4648Vectors() {
        let vectors = [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="),
                       ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")]
        for (plain, encoded) in vectors {
            XCTAssertEqual(Base64.encode(Array(plain.utf8)), encoded)
            XCTAssertEqual(Base64.decode(encoded), Array(plain.utf8), encoded)
        }
    }

    func testEveryByteRoundTrips() {
        let all = (0...255).map { UInt8($0) }
        for length in [1, 2, 3, 254, 255, 256] {
            let bytes = Array(all.prefix(length))
            XCTAssertEqual(Base64.decode(Base64.encode(bytes)), bytes)
        }
        XCTAssertEqual(Base64.encode([0xFB, 0xFF]), "+/8=")
    }

    func testRefusesWhatIsNotCanonical() {
        for bad in ["Zg", "Zg=", "Z===", "====", "Zm9v\n", "Zm 9", "Zh==", "Zm9=", "Zg==Zg==", "Zm-v", "Zm_v"] {
            XCTAssertNil(Base64.decode(bad), bad)
        }
    }
}
