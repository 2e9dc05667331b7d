import Testing
import BluetoothCore
@testable import L2CAP

/// Byte vectors are complete basic frames as HCI hands them over:
/// length (LE u16), CID (LE u16), payload.
@Suite struct L2CAPTests {
    let handle = ConnectionHandle(0x0040)
    let phone = BluetoothAddress(value: 0x4A_11_22_33_44_55, kind: .random)

    func layer(role: LinkRole = .central) -> L2CAPLayer {
        var l2cap = L2CAPLayer()
        l2cap.linkConnected(L2CAPLink(handle: handle, role: role, peer: phone))
        return l2cap
    }

    func drain(_ l2cap: inout L2CAPLayer) -> [L2CAPEvent] {
        var out: [L2CAPEvent] = []
        while let e = l2cap.pollEvent() { out.append(e) }
        return out
    }

    func frame(_ text: String) -> [UInt8] { bytesFromHex(text)! }

    @Test func routesATTAndSMPPayloads() {
        var l2cap = layer()
        // Exchange MTU Req (MTU 527) on CID 4, then Pairing Request on CID 6.
        l2cap.receive(frame("0300 0400 02 0f02"), on: handle)
        l2cap.receive(frame("0700 0600 01 04 00 2d 10 0f 0f"), on: handle)
        #expect(drain(&l2cap) == [
            .att(handle, [0x02, 0x0F, 0x02]),
            .smp(handle, [0x01, 0x04, 0x00, 0x2D, 0x10, 0x0F, 0x0F]),
        ])
    }

    @Test func wrapsOutgoingPayloads() {
        var l2cap = layer()
        l2cap.send([0x03, 0xF7, 0x00], on: handle, channel: .att)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0300 0400 03 f700"))])
        // Unknown link: nothing goes out.
        l2cap.send([0x01], on: ConnectionHandle(0x0041), channel: .att)
        #expect(drain(&l2cap).isEmpty)
    }

    @Test func dropsMalformedFramesAndUnknownChannels() {
        var l2cap = layer()
        l2cap.receive(frame("0500 0400 0a 0300"), on: handle)      // length says 5, 3 present
        l2cap.receive(frame("0100 0400 0a 0300"), on: handle)      // extra bytes
        l2cap.receive(frame("04"), on: handle)                     // no header
        l2cap.receive([], on: handle)
        l2cap.receive(frame("0200 4000 0102"), on: handle)         // dynamic CID nobody opened
        l2cap.receive(frame("0200 0100 0102"), on: handle)         // BR/EDR signaling on LE
        l2cap.receive(frame("0300 0400 0a 0300"), on: ConnectionHandle(0x0041))  // unknown link
        #expect(drain(&l2cap).isEmpty)
    }

    @Test func acceptsValidParameterUpdate() {
        var l2cap = layer()
        // iOS-style request: interval 24..40 (30..50 ms), latency 0, timeout 500 (5 s), identifier 0x01.
        l2cap.receive(frame("0c00 0500 12 01 0800 1800 2800 0000 f401"), on: handle)
        #expect(drain(&l2cap) == [
            .transmit(handle, frame("0600 0500 13 01 0200 0000")),
            .updateConnectionParameters(handle, ConnectionParameters(intervalMin: 24, intervalMax: 40, peripheralLatency: 0, supervisionTimeout: 500)),
        ])
    }

    @Test(arguments: [
        "0500 0600 0000 f401",   // min below 6
        "0600 810c 0000 f401",   // max above 3200
        "2800 1800 0000 f401",   // min > max
        "1800 2800 f401 f401",   // latency 500
        "1800 2800 0000 0900",   // timeout below 10
        "1800 2800 0000 810c",   // timeout above 3200
        "1800 2800 0400 3200",   // 500 ms timeout <= (1+4) * 50 ms * 2
        "1800 2800 0000 0a00",   // 100 ms timeout == (1+0) * 50 ms * 2: not larger
    ])
    func rejectsInvalidParameterUpdate(parameters: String) {
        var l2cap = layer()
        l2cap.receive(frame("0c00 0500 12 07 0800" + parameters), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0600 0500 13 07 0200 0100"))])
    }

    @Test func parameterUpdateBoundaries() {
        #expect(ConnectionParameters(intervalMin: 6, intervalMax: 3200, peripheralLatency: 0, supervisionTimeout: 3200).isValid)
        // 32 s > (1 + 3) * 4 s * 2 = 32 s is false; 3 gives 24 s.
        #expect(!ConnectionParameters(intervalMin: 3200, intervalMax: 3200, peripheralLatency: 3, supervisionTimeout: 3200).isValid)
        #expect(ConnectionParameters(intervalMin: 3200, intervalMax: 3200, peripheralLatency: 2, supervisionTimeout: 3200).isValid)
        #expect(ConnectionParameters(intervalMin: 6, intervalMax: 6, peripheralLatency: 499, supervisionTimeout: 3200).isValid)
    }

    @Test func peripheralDoesNotUnderstandParameterUpdate() {
        var l2cap = layer(role: .peripheral)
        l2cap.receive(frame("0c00 0500 12 02 0800 1800 2800 0000 f401"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0600 0500 01 02 0200 0000"))])
    }

    @Test func shortParameterUpdateIsRejected() {
        var l2cap = layer()
        l2cap.receive(frame("0a00 0500 12 03 0600 1800 2800 0000"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0600 0500 01 03 0200 0000"))])
    }

    @Test func unknownCodeGetsCommandReject() {
        var l2cap = layer()
        // Echo Request (BR/EDR only) and an undefined code 0x7f.
        l2cap.receive(frame("0600 0500 08 09 0200 aabb"), on: handle)
        l2cap.receive(frame("0400 0500 7f 0a 0000"), on: handle)
        #expect(drain(&l2cap) == [
            .transmit(handle, frame("0600 0500 01 09 0200 0000")),
            .transmit(handle, frame("0600 0500 01 0a 0200 0000")),
        ])
    }

    @Test func creditBasedConnectionIsRefused() {
        var l2cap = layer()
        // LE Credit Based Connection Request: SPSM 0x0080, SCID 0x0040, MTU 512, MPS 251, 10 credits.
        l2cap.receive(frame("0e00 0500 14 04 0a00 8000 4000 0002 fb00 0a00"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0e00 0500 15 04 0a00 0000 0000 0000 0000 0200"))])
    }

    @Test func enhancedCreditBasedConnectionIsRefused() {
        var l2cap = layer()
        // SPSM 0x0025, MTU 100, MPS 100, 5 credits, two source CIDs.
        l2cap.receive(frame("1000 0500 17 05 0c00 2500 6400 6400 0500 4000 4100"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("1000 0500 18 05 0c00 0000 0000 0000 0200 0000 0000"))])
    }

    @Test func disconnectionRequestForUnknownCID() {
        var l2cap = layer()
        // Destination CID 0x0040 (ours), source CID 0x0041 (theirs).
        l2cap.receive(frame("0800 0500 06 0b 0400 4000 4100"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0a00 0500 01 0b 0600 0200 4000 4100"))])
    }

    @Test func unsolicitedResponsesAndCreditsAreIgnored() {
        var l2cap = layer()
        l2cap.receive(frame("0600 0500 01 0c 0200 0000"), on: handle)        // Command Reject
        l2cap.receive(frame("0600 0500 13 0d 0200 0000"), on: handle)        // Param update response
        l2cap.receive(frame("0800 0500 16 0e 0400 4000 0100"), on: handle)   // credits for 0x0040
        #expect(drain(&l2cap).isEmpty)
    }

    @Test func malformedSignalingIsDropped() {
        var l2cap = layer()
        l2cap.receive(frame("0c00 0500 12 01 0900 1800 2800 0000 f401"), on: handle)  // length 9, 8 present
        l2cap.receive(frame("0300 0500 12 01 08"), on: handle)                        // header cut
        l2cap.receive(frame("0c00 0500 12 00 0800 1800 2800 0000 f401"), on: handle)  // identifier 0
        #expect(drain(&l2cap).isEmpty)
    }

    @Test func oversizedCommandExceedsSignalingMTU() {
        var l2cap = layer()
        let data = [UInt8](repeating: 0, count: 20)
        var payload: [UInt8] = [0x08, 0x0F, 20, 0]
        payload += data
        l2cap.receive(BasicFrame.encode(channel: .leSignaling, payload: payload), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0800 0500 01 0f 0400 0100 1700"))])
    }

    /// Found by fuzzing (Fuzz/corpus/le-signaling/crash-oversized-response):
    /// a response longer than the signaling MTU got a Command Reject.
    @Test func oversizedResponseIsNotAnswered() {
        var l2cap = layer()
        let payload: [UInt8] = [0x13, 0xBB, 24, 0] + [UInt8](repeating: 0xBB, count: 24)  // Param update response
        l2cap.receive(BasicFrame.encode(channel: .leSignaling, payload: payload), on: handle)
        #expect(drain(&l2cap).isEmpty)
    }

    @Test func forgetsDisconnectedLinks() {
        var l2cap = layer()
        l2cap.linkDisconnected(handle)
        l2cap.receive(frame("0300 0400 0a 0300"), on: handle)
        #expect(drain(&l2cap).isEmpty)
        #expect(l2cap.links.isEmpty)
    }
}
