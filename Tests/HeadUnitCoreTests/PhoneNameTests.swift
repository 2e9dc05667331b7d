@testable import HeadUnitCore
import Testing

/// The Device Name a phone gives is drawn on the screen: it is cleaned
/// first, whatever bytes the phone sends.
@Suite struct PhoneNameTests {
    @Test func aNameIsShownAsWritten() {
        #expect(PhoneLink.displayableName(Array("Anna’s iPhone".utf8)) == "Anna’s iPhone")
        #expect(PhoneLink.displayableName(Array("花子のiPhone".utf8)) == "花子のiPhone")
    }

    @Test func controlCharactersAndOuterSpacesGo() {
        #expect(PhoneLink.displayableName(Array("  Anna\n\t\u{1B}[2J’s\u{7F} iPhone ".utf8)) == "Anna[2J’s iPhone")
    }

    @Test func badUTF8IsReplacedNotTrusted() {
        #expect(PhoneLink.displayableName([0x41, 0xFF, 0xC0, 0x42]) == "A\u{FFFD}\u{FFFD}B")
    }

    @Test func nothingLeftIsNoName() {
        #expect(PhoneLink.displayableName([]) == nil)
        #expect(PhoneLink.displayableName([0x20, 0x0A, 0x00, 0x20]) == nil)
    }

    @Test func longNamesAreCutAt64Characters() {
        let name = PhoneLink.displayableName([UInt8](repeating: 0x61, count: 300))
        #expect(name?.unicodeScalars.count == 64)
    }
}
