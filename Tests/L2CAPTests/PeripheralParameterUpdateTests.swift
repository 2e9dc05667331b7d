import Testing
import BluetoothCore
@testable import L2CAP

/// Apple's rules for a peripheral's parameter request, at their edges.
/// Units: intervals 1.25 ms, timeout 10 ms.
@Suite struct AppleConnectionParameterTests {
    func p(_ min: UInt16, _ max: UInt16, _ latency: UInt16, _ timeout: UInt16) -> ConnectionParameters {
        ConnectionParameters(intervalMin: min, intervalMax: max, peripheralLatency: latency, supervisionTimeout: timeout)
    }

    @Test func acceptedSets() {
        // 15-30 ms, no latency, 2 s: every minimum at once.
        #expect(p(12, 24, 0, 200).meetsAppleGuidelines)
        // 30-50 ms, 4 s.
        #expect(p(24, 40, 0, 400).meetsAppleGuidelines)
        // 62.5 ms × 31 = 1.94 s of silence, × 3 = 5.8 s below a 6 s timeout.
        #expect(p(12, 50, 30, 600).meetsAppleGuidelines)
        #expect(ConnectionParameters.peripheralRequest.meetsAppleGuidelines)
    }

    @Test func refusedSetsNameTheRuleTheyBreak() {
        #expect(p(11, 24, 0, 400).appleGuidelineViolation == .intervalMinTooShort)       // 13.75 ms
        #expect(p(12, 23, 0, 400).appleGuidelineViolation == .intervalRangeTooNarrow)    // 15..28.75 ms
        #expect(p(24, 40, 31, 600).appleGuidelineViolation == .latencyTooHigh)
        #expect(p(24, 40, 0, 199).appleGuidelineViolation == .timeoutOutOfRange)          // 1.99 s
        #expect(p(24, 40, 0, 601).appleGuidelineViolation == .timeoutOutOfRange)          // 6.01 s
        // 200 ms × 9 = 1.8 s ≤ 2 s, but × 3 = 5.4 s is not below 5 s.
        #expect(p(24, 160, 8, 500).appleGuidelineViolation == .timeoutTooShortForSilence)
        #expect(p(24, 160, 8, 541).meetsAppleGuidelines)
        // 500 ms × 5 = 2.5 s of silence.
        #expect(p(24, 400, 4, 600).appleGuidelineViolation == .silenceTooLong)
        // Exactly 2 s of silence is allowed by that rule; 6 s timeout is then not above 3 × 2 s.
        #expect(p(24, 400, 3, 600).appleGuidelineViolation == .timeoutTooShortForSilence)
        // Min above max breaks the Core ranges before Apple's.
        #expect(p(40, 24, 0, 400).appleGuidelineViolation == .invalid)
    }
}

@Suite struct PeripheralParameterUpdateTests {
    /// The link, phone and helpers of the central-side tests.
    let base = L2CAPTests()
    var handle: ConnectionHandle { base.handle }
    let wanted = ConnectionParameters.peripheralRequest

    func layer(role: LinkRole = .peripheral) -> L2CAPLayer { base.layer(role: role) }
    func drain(_ l2cap: inout L2CAPLayer) -> [L2CAPEvent] { base.drain(&l2cap) }
    func frame(_ text: String) -> [UInt8] { base.frame(text) }

    @Test func requestGoesOutOnTheSignalingChannel() {
        var l2cap = layer()
        let sent = l2cap.requestConnectionParameters(wanted, on: handle, now: .zero)
        #expect(sent)
        // Code 0x12, identifier 1, length 8: 24, 40, 0, 200 (2 s, the shortest Apple allows).
        #expect(drain(&l2cap) == [.transmit(handle, frame("0c00 0500 12 01 0800 1800 2800 0000 c800"))])
        #expect(l2cap.nextDeadline == Instant(milliseconds: 30_000))
    }

    @Test func acceptedAndRejectedResponses() {
        var l2cap = layer()
        l2cap.requestConnectionParameters(wanted, on: handle, now: .zero)
        _ = drain(&l2cap)
        // A response with another identifier answers nothing.
        l2cap.receive(frame("0600 0500 13 07 0200 0000"), on: handle)
        #expect(l2cap.pollParameterUpdateAnswer() == nil)
        l2cap.receive(frame("0600 0500 13 01 0200 0000"), on: handle)
        #expect(l2cap.pollParameterUpdateAnswer() == ParameterUpdateAnswer(handle: handle, parameters: wanted, outcome: .accepted))
        #expect(l2cap.nextDeadline == nil)
        // The next request gets the next identifier, and is rejected.
        l2cap.requestConnectionParameters(wanted, on: handle, now: .zero)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0c00 0500 12 02 0800 1800 2800 0000 c800"))])
        l2cap.receive(frame("0600 0500 13 02 0200 0100"), on: handle)
        #expect(l2cap.pollParameterUpdateAnswer()?.outcome == .rejected)
        // Responses are never answered.
        #expect(drain(&l2cap).isEmpty)
    }

    @Test func commandRejectMeansNotUnderstood() {
        var l2cap = layer()
        l2cap.requestConnectionParameters(wanted, on: handle, now: .zero)
        _ = drain(&l2cap)
        l2cap.receive(frame("0600 0500 01 01 0200 0000"), on: handle)
        #expect(l2cap.pollParameterUpdateAnswer()?.outcome == .notUnderstood)
        #expect(drain(&l2cap).isEmpty)
    }

    @Test func silentCentralTimesOut() {
        var l2cap = layer()
        l2cap.requestConnectionParameters(wanted, on: handle, now: Instant(milliseconds: 1000))
        l2cap.handleTimeout(now: Instant(milliseconds: 30_999))
        #expect(l2cap.pollParameterUpdateAnswer() == nil)
        l2cap.handleTimeout(now: Instant(milliseconds: 31_000))
        #expect(l2cap.pollParameterUpdateAnswer()?.outcome == .noAnswer)
        // A late response answers nothing now.
        l2cap.receive(frame("0600 0500 13 01 0200 0000"), on: handle)
        #expect(l2cap.pollParameterUpdateAnswer() == nil)
    }

    @Test func malformedResponseCountsAsRejection() {
        var l2cap = layer()
        l2cap.requestConnectionParameters(wanted, on: handle, now: .zero)
        _ = drain(&l2cap)
        l2cap.receive(frame("0500 0500 13 01 0100 00"), on: handle)
        #expect(l2cap.pollParameterUpdateAnswer()?.outcome == .rejected)
    }

    @Test func requestsThatCannotBeSentAreRefused() {
        // As central we answer requests; we never make one.
        var central = layer(role: .central)
        let asCentral = central.requestConnectionParameters(wanted, on: handle, now: .zero)
        var l2cap = layer()
        let unknownLink = l2cap.requestConnectionParameters(wanted, on: ConnectionHandle(0x0099), now: .zero)
        // iOS would refuse 7.5 ms, so it is not asked.
        let tooFast = l2cap.requestConnectionParameters(
            ConnectionParameters(intervalMin: 6, intervalMax: 24, peripheralLatency: 0, supervisionTimeout: 400), on: handle, now: .zero)
        #expect(!asCentral && !unknownLink && !tooFast)
        #expect(drain(&central).isEmpty && drain(&l2cap).isEmpty)
        // One at a time.
        let first = l2cap.requestConnectionParameters(wanted, on: handle, now: .zero)
        let second = l2cap.requestConnectionParameters(wanted, on: handle, now: .zero)
        #expect(first && !second)
        #expect(drain(&l2cap).count == 1)
    }

    @Test func disconnectionForgetsTheRequest() {
        var l2cap = layer()
        l2cap.requestConnectionParameters(wanted, on: handle, now: .zero)
        l2cap.linkDisconnected(handle)
        #expect(l2cap.nextDeadline == nil)
        l2cap.handleTimeout(now: Instant(milliseconds: 60_000))
        #expect(l2cap.pollParameterUpdateAnswer() == nil)
    }
}
