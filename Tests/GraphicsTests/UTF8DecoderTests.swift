import Testing
@testable import Graphics

@Suite struct UTF8DecoderTests {
    @Test func decodesWellFormedText() {
        let s = "Aé€😀"
        #expect(UTF8Decoder.scalars(Array(s.utf8)) == [0x41, 0xE9, 0x20AC, 0x1F600])
    }

    /// Unicode 15, section 3.9, table 3-8: one U+FFFD per maximal subpart.
    @Test func replacesEachMaximalInvalidSubpart() {
        let bytes: [UInt8] = [0x61, 0xF1, 0x80, 0x80, 0xE1, 0x80, 0xC2, 0x62, 0x80, 0x63, 0x80, 0xBF, 0x64]
        let r: UInt32 = 0xFFFD
        #expect(UTF8Decoder.scalars(bytes) == [0x61, r, r, r, 0x62, r, 0x63, r, r, 0x64])
    }

    @Test func rejectsOverlongsSurrogatesAndOutOfRange() {
        let r: UInt32 = 0xFFFD
        // Overlong "/" (C0 AF), a surrogate (ED A0 80), past U+10FFFF (F4 90 80 80).
        #expect(UTF8Decoder.scalars([0xC0, 0xAF]) == [r, r])
        #expect(UTF8Decoder.scalars([0xED, 0xA0, 0x80]) == [r, r, r])
        #expect(UTF8Decoder.scalars([0xF4, 0x90, 0x80, 0x80]) == [r, r, r, r])
        #expect(UTF8Decoder.scalars([0xE2, 0x82]) == [r])  // truncated at the end
        #expect(UTF8Decoder.scalars([0xFF, 0x41]) == [r, 0x41])
    }
}
