import Testing
@testable import Input

@Suite struct EvdevDecoderTests {
    /// KEY_ENTER press at 1.5 s, as a 64-bit kernel lays it out.
    let enterPress: [UInt8] = [
        0x01, 0, 0, 0, 0, 0, 0, 0, // tv_sec = 1
        0x20, 0xA1, 0x07, 0, 0, 0, 0, 0, // tv_usec = 500000
        0x01, 0x00, // EV_KEY
        0x1C, 0x00, // KEY_ENTER
        0x01, 0, 0, 0, // pressed
    ]

    @Test func decodesTheKernelLayout() {
        var d = EvdevDecoder()
        let events = d.decode(enterPress)
        #expect(events == [InputEvent(microseconds: 1_500_000, type: .key, code: 28, value: 1)])
        #expect(d.pendingCount == 0)
    }

    @Test func negativeValues() {
        var d = EvdevDecoder()
        let e = InputEvent(microseconds: 7, type: .absolute, code: AbsoluteAxisCode.multitouchTrackingID, value: -1)
        #expect(d.decode(EvdevDecoder.encode(e)) == [e])
    }

    @Test func encodeIsTheInverse() {
        #expect(EvdevDecoder.encode(InputEvent(microseconds: 1_500_000, type: .key, code: 28, value: 1)) == enterPress)
    }

    @Test func streamSplitAtEveryByteGivesTheSameEvents() {
        var s = EventStream()
        s.stDown(100, 200)
        s.stMove(110, 190)
        s.stUp()
        s.key(.volumeUp, 1)
        let bytes = s.bytes
        for cut in 0...bytes.count {
            var d = EvdevDecoder()
            var events = d.decode(Array(bytes[0..<cut]))
            events += d.decode(Array(bytes[cut...]))
            #expect(events == s.events, "cut at \(cut)")
            #expect(d.pendingCount == 0)
        }
    }

    @Test func oneByteAtATime() {
        var s = EventStream()
        s.key(.nextSong, 1)
        s.key(.nextSong, 0)
        var d = EvdevDecoder()
        var events: [InputEvent] = []
        for b in s.bytes { events += d.decode([b]) }
        #expect(events == s.events)
    }

    @Test func partialEventIsHeldBack() {
        var d = EvdevDecoder()
        #expect(d.decode(Array(enterPress[0..<23])).isEmpty)
        #expect(d.pendingCount == 23)
        d.reset()
        #expect(d.decode(enterPress).count == 1)
    }

    @Test func wildTimestampDoesNotTrap() {
        var raw = enterPress
        for i in 0..<8 { raw[i] = 0xFF }
        raw[7] = 0x7F // tv_sec = Int64.max
        var d = EvdevDecoder()
        #expect(d.decode(raw).first?.code == 28)
    }
}
