import Testing
import BluetoothCore
@testable import L2CAP

/// LE credit based channels as the acceptor (Core Vol 3 Part A 3.4,
/// 4.22-4.24, 10.1). Signaling vectors are complete basic frames on CID
/// 0x0005: length, CID, then code, identifier, data length, data (all
/// little-endian). The service here takes SDUs of up to 512 bytes in
/// K-frames of up to 64 bytes and grants 4 credits; the peer's endpoint is
/// CID 0x0041 and ours (the first free) 0x0040.
@Suite struct CreditBasedChannelTests {
    let handle = ConnectionHandle(0x0040)
    let phone = BluetoothAddress(value: 0x4A_11_22_33_44_55, kind: .random)
    let service = ChannelService(security: .encrypted, mtu: 512, mps: 64, credits: 4)
    var endpoint: ChannelEndpoint { ChannelEndpoint(handle: handle, local: ChannelIdentifier(0x0040), spsm: SPSM(0x0080)) }

    func frame(_ text: String) -> [UInt8] { bytesFromHex(text)! }

    func layer(encrypted: Bool = true, service: ChannelService? = nil) -> L2CAPLayer {
        var l2cap = L2CAPLayer()
        l2cap.linkConnected(L2CAPLink(handle: handle, role: .peripheral, peer: phone))
        #expect(l2cap.publish(service ?? self.service) == SPSM(0x0080))
        l2cap.setLinkEncrypted(handle, encrypted)
        return l2cap
    }

    func drain(_ l2cap: inout L2CAPLayer) -> [L2CAPEvent] {
        var out: [L2CAPEvent] = []
        while let e = l2cap.pollEvent() { out.append(e) }
        return out
    }

    func channelEvents(_ l2cap: inout L2CAPLayer) -> [ChannelEvent] {
        var out: [ChannelEvent] = []
        while let e = l2cap.pollChannelEvent() { out.append(e) }
        return out
    }

    func send(_ l2cap: inout L2CAPLayer, _ sdu: [UInt8], on endpoint: ChannelEndpoint) -> Bool { l2cap.sendSDU(sdu, on: endpoint) }

    /// The channel at `endpoint` as it stands.
    func open(_ l2cap: L2CAPLayer) -> CreditBasedChannel? { l2cap.channel(endpoint) }

    /// A K-frame from the peer to our CID 0x0040.
    func kFrame(_ payload: [UInt8]) -> [UInt8] { BasicFrame.encode(channel: ChannelIdentifier(0x0040), payload: payload) }

    func pattern(_ count: Int, from start: UInt8 = 0) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: Int(start) + $0) } }

    /// The peer opens a channel: SPSM 0x0080, its CID 0x0041, MTU 512,
    /// MPS 23 (the minimum), 5 credits.
    func opened(encrypted: Bool = true, service: ChannelService? = nil) -> L2CAPLayer {
        var l2cap = layer(encrypted: encrypted, service: service)
        l2cap.receive(frame("0e00 0500 14 01 0a00 8000 4100 0002 1700 0500"), on: handle)
        _ = drain(&l2cap)
        _ = channelEvents(&l2cap)
        return l2cap
    }

    @Test func publishingTakesDynamicSPSMsInTurn() {
        var l2cap = L2CAPLayer()
        #expect(l2cap.publish(service) == SPSM(0x0080))
        #expect(l2cap.publish(ChannelService(security: .none)) == SPSM(0x0081))
        #expect(SPSM(0x0080).isDynamic && SPSM(0x00FF).isDynamic && !SPSM(0x0025).isDynamic && !SPSM(0x0100).isDynamic)
        for _ in 0x0082...0x00FF { _ = l2cap.publish(service) }
        #expect(l2cap.publish(service) == nil, "only 128 dynamic SPSMs exist")
    }

    @Test func aPeerOpensAChannelToAPublishedService() {
        var l2cap = layer()
        l2cap.receive(frame("0e00 0500 14 01 0a00 8000 4100 0002 1700 0500"), on: handle)
        // Response: our CID 0x0040, MTU 512, MPS 64, 4 credits, result 0 (successful).
        #expect(drain(&l2cap) == [.transmit(handle, frame("0e00 0500 15 01 0a00 4000 0002 4000 0400 0000"))])
        #expect(channelEvents(&l2cap) == [.opened(endpoint, peerMTU: 512)])
        let channel = open(l2cap)
        #expect(channel?.remote == ChannelIdentifier(0x0041) && channel?.peerMPS == 23)
        #expect(channel?.sendCredits == 5 && channel?.receiveCredits == 4)
        // A second channel from the same peer gets the next CID.
        l2cap.receive(frame("0e00 0500 14 02 0a00 8000 4200 1700 1700 0000"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0e00 0500 15 02 0a00 4100 0002 4000 0400 0000"))])
    }

    /// Each refusal carries zeros for CID, MTU, MPS and credits, and its result.
    @Test(arguments: [
        // Nothing published on SPSM 0x0081, nor on the SIG's 0x0025 (IPSP).
        ("8100 4100 0002 1700 0500", "0200"),
        ("2500 4100 0002 1700 0500", "0200"),
        // Source CID outside 0x0040-0x007F.
        ("8000 3f00 0002 1700 0500", "0900"),
        ("8000 8000 0002 1700 0500", "0900"),
        // MTU below 23, MPS below 23, MPS above 65533.
        ("8000 4100 1600 1700 0500", "0b00"),
        ("8000 4100 0002 1600 0500", "0b00"),
        ("8000 4100 0002 feff 0500", "0b00"),
    ])
    func refusals(request: String, result: String) {
        var l2cap = layer()
        l2cap.receive(frame("0e00 0500 14 07 0a00 " + request), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0e00 0500 15 07 0a00 0000 0000 0000 0000 " + result))])
        #expect(channelEvents(&l2cap).isEmpty)
    }

    @Test func anUnencryptedLinkIsRefusedWithInsufficientEncryption() {
        var l2cap = layer(encrypted: false)
        l2cap.receive(frame("0e00 0500 14 03 0a00 8000 4100 0002 1700 0500"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0e00 0500 15 03 0a00 0000 0000 0000 0000 0800"))])
        #expect(channelEvents(&l2cap).isEmpty)
        // Once the security manager accepts the link's encryption, it opens.
        l2cap.setLinkEncrypted(handle, true)
        l2cap.receive(frame("0e00 0500 14 04 0a00 8000 4100 0002 1700 0500"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0e00 0500 15 04 0a00 4000 0002 4000 0400 0000"))])
        // A service without security opens on any link.
        var open = L2CAPLayer()
        open.linkConnected(L2CAPLink(handle: handle, role: .peripheral, peer: phone))
        _ = open.publish(ChannelService(security: .none, mtu: 100, mps: 50, credits: 2))
        open.receive(frame("0e00 0500 14 05 0a00 8000 4100 0002 1700 0500"), on: handle)
        #expect(drain(&open) == [.transmit(handle, frame("0e00 0500 15 05 0a00 4000 6400 3200 0200 0000"))])
    }

    @Test func aSourceCIDInUseAndTooManyChannelsAreRefused() {
        var l2cap = opened()
        l2cap.receive(frame("0e00 0500 14 08 0a00 8000 4100 0002 1700 0500"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0e00 0500 15 08 0a00 0000 0000 0000 0000 0a00"))])
        for cid in 0x42..<(0x41 + CreditBasedChannels.channelsPerLink) {
            l2cap.receive(BasicFrame.encode(channel: .leSignaling, payload: [0x14, 0x09, 10, 0, 0x80, 0, UInt8(cid), 0, 0, 2, 23, 0, 5, 0]), on: handle)
        }
        #expect(drain(&l2cap).count == CreditBasedChannels.channelsPerLink - 1)
        l2cap.receive(frame("0e00 0500 14 0a 0a00 8000 7000 0002 1700 0500"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0e00 0500 15 0a 0a00 0000 0000 0000 0000 0400"))])
    }

    @Test func aMalformedRequestIsNotUnderstood() {
        var l2cap = layer()
        // Nine data bytes instead of ten.
        l2cap.receive(frame("0d00 0500 14 0b 0900 8000 4100 0002 1700 05"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0600 0500 01 0b 0200 0000"))])
    }

    /// Core Vol 3 Part A 3.4.2: the first K-frame of an SDU carries the SDU
    /// length; each K-frame's payload (that field included) is at most the
    /// peer's MPS, 23 here.
    @Test func anSDUIsCutAtThePeersMPSAndSpendsOneCreditPerKFrame() {
        var l2cap = opened()
        let sdu = pattern(50)
        #expect(send(&l2cap, sdu, on: endpoint))
        let first: [UInt8] = [0x17, 0x00, 0x41, 0x00, 50, 0x00] + sdu[0..<21]
        let middle: [UInt8] = [0x17, 0x00, 0x41, 0x00] + sdu[21..<44]
        let last: [UInt8] = [0x06, 0x00, 0x41, 0x00] + sdu[44..<50]
        #expect(drain(&l2cap) == [.transmit(handle, first), .transmit(handle, middle), .transmit(handle, last)])
        #expect(open(l2cap)?.sendCredits == 2)
        // Two credits left: the next SDU's third K-frame waits.
        let second = pattern(50, from: 100)
        #expect(send(&l2cap, second, on: endpoint))
        #expect(drain(&l2cap).count == 2)
        #expect(open(l2cap)?.framesWaiting == 1)
        // Flow Control Credit Indication from the peer: its CID 0x0041, 3 credits.
        l2cap.receive(frame("0800 0500 16 02 0400 4100 0300"), on: handle)
        let rest: [UInt8] = [0x06, 0x00, 0x41, 0x00] + second[44..<50]
        #expect(drain(&l2cap) == [.transmit(handle, rest)])
        #expect(open(l2cap)?.sendCredits == 2 && open(l2cap)?.framesWaiting == 0)
        // An empty SDU is one K-frame with its length, 0.
        #expect(send(&l2cap, [], on: endpoint))
        #expect(drain(&l2cap) == [.transmit(handle, frame("0200 4100 0000"))])
    }

    @Test func anSDUAboveThePeersMTUOrOnNoChannelIsNotSent() {
        var l2cap = opened()
        #expect(!send(&l2cap, pattern(513), on: endpoint))
        #expect(send(&l2cap, pattern(512), on: endpoint))
        let other = ChannelEndpoint(handle: handle, local: ChannelIdentifier(0x0050), spsm: SPSM(0x0080))
        #expect(!send(&l2cap, [1], on: other))
    }

    @Test func kFramesAreReassembledIntoSDUsAndCreditsGoBack() {
        var l2cap = opened()
        let sdu = pattern(100)
        // 64-byte K-frame: SDU length 100, then 62 bytes; then the other 38.
        l2cap.receive(kFrame([100, 0] + sdu[0..<62]), on: handle)
        #expect(channelEvents(&l2cap).isEmpty)
        #expect(drain(&l2cap).isEmpty, "credits went back while the peer held more than half")
        l2cap.receive(kFrame(Array(sdu[62...])), on: handle)
        #expect(channelEvents(&l2cap) == [.received(ChannelSDU(channel: endpoint, bytes: sdu))])
        // Two of four credits spent: both go back (our CID 0x0040, 2 credits).
        #expect(drain(&l2cap) == [.transmit(handle, frame("0800 0500 16 01 0400 4000 0200"))])
        #expect(open(l2cap)?.receiveCredits == 4)
        // SDUs of one K-frame each, and an empty one.
        l2cap.receive(kFrame([3, 0, 7, 8, 9]), on: handle)
        l2cap.receive(kFrame([0, 0]), on: handle)
        #expect(channelEvents(&l2cap) == [.received(ChannelSDU(channel: endpoint, bytes: [7, 8, 9])),
                                          .received(ChannelSDU(channel: endpoint, bytes: []))])
        #expect(drain(&l2cap) == [.transmit(handle, frame("0800 0500 16 02 0400 4000 0200"))])
        // The largest SDU the MTU allows.
        let largest = pattern(512, from: 9)
        l2cap.receive(kFrame([0x00, 0x02] + largest[0..<62]), on: handle)
        var offset = 62
        while offset < 512 {
            let end = min(offset + 64, 512)
            l2cap.receive(kFrame(Array(largest[offset..<end])), on: handle)
            offset = end
        }
        #expect(channelEvents(&l2cap) == [.received(ChannelSDU(channel: endpoint, bytes: largest))])
    }

    /// Each breach of the channel's rules ends it with our Disconnection
    /// Request: destination its CID 0x0041, source ours 0x0040.
    @Test(arguments: [
        ([UInt8](repeating: 0, count: 65), "a K-frame of 65 bytes above our MPS 64"),      // above our MPS
        ([0x01, 0x02] + [UInt8](repeating: 0, count: 10), "an SDU of 513 bytes above our MTU 512"),
        ([0x05], "a first K-frame without the SDU length"),
        ([0x02, 0x00, 1, 2, 3], "K-frames beyond the SDU length 2"),
    ])
    func aPeerBreakingTheRulesLosesTheChannel(payload: [UInt8], what: String) {
        var l2cap = opened()
        l2cap.receive(kFrame(payload), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0800 0500 06 01 0400 4100 4000"))])
        #expect(channelEvents(&l2cap) == [.closed(endpoint, .peerViolation(what))])
        #expect(open(l2cap) == nil)
        // Its K-frames are dropped now; its Disconnection Response is taken quietly.
        l2cap.receive(kFrame([1, 0, 1]), on: handle)
        l2cap.receive(frame("0800 0500 07 01 0400 4100 4000"), on: handle)
        #expect(drain(&l2cap).isEmpty)
        #expect(channelEvents(&l2cap).isEmpty)
        // The endpoint is free again for a new channel.
        l2cap.receive(frame("0e00 0500 14 09 0a00 8000 4100 0002 1700 0500"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0e00 0500 15 09 0a00 4000 0002 4000 0400 0000"))])
    }

    @Test func aKFrameWithoutACreditLosesTheChannel() {
        var l2cap = opened(service: ChannelService(security: .encrypted, mtu: 512, mps: 64, credits: 0))
        l2cap.receive(kFrame([1, 0, 1]), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0800 0500 06 01 0400 4100 4000"))])
        #expect(channelEvents(&l2cap) == [.closed(endpoint, .peerViolation("a K-frame without a credit"))])
    }

    /// Core Vol 3 Part A 10.1: credits past 65535 end the channel.
    @Test func creditsPast65535LoseTheChannel() {
        var l2cap = opened()
        l2cap.receive(frame("0800 0500 16 02 0400 4100 faff"), on: handle)   // 5 + 65530 = 65535: fine
        #expect(drain(&l2cap).isEmpty)
        #expect(open(l2cap)?.sendCredits == 65535)
        l2cap.receive(frame("0800 0500 16 03 0400 4100 0100"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0800 0500 06 01 0400 4100 4000"))])
        #expect(channelEvents(&l2cap) == [.closed(endpoint, .peerViolation("credits past 65535"))])
    }

    @Test func thePeerDisconnects() {
        var l2cap = opened()
        // A source CID that is not the channel's is discarded (4.6).
        l2cap.receive(frame("0800 0500 06 05 0400 4000 4200"), on: handle)
        #expect(drain(&l2cap).isEmpty)
        #expect(open(l2cap) != nil)
        l2cap.receive(frame("0800 0500 06 06 0400 4000 4100"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0800 0500 07 06 0400 4000 4100"))])
        #expect(channelEvents(&l2cap) == [.closed(endpoint, .peerDisconnected)])
        // Now unknown: Command Reject, invalid CID.
        l2cap.receive(frame("0800 0500 06 07 0400 4000 4100"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0a00 0500 01 07 0600 0200 4000 4100"))])
    }

    @Test func weCloseAndTheLinkGoing() {
        var l2cap = opened()
        l2cap.closeChannel(endpoint)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0800 0500 06 01 0400 4100 4000"))])
        #expect(channelEvents(&l2cap) == [.closed(endpoint, .closedHere)])
        // Until the response, our CID 0x0040 stays taken: a new channel gets 0x0041.
        l2cap.receive(frame("0e00 0500 14 02 0a00 8000 4100 0002 1700 0500"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0e00 0500 15 02 0a00 4100 0002 4000 0400 0000"))])
        _ = channelEvents(&l2cap)
        l2cap.linkDisconnected(handle)
        let second = ChannelEndpoint(handle: handle, local: ChannelIdentifier(0x0041), spsm: SPSM(0x0080))
        #expect(channelEvents(&l2cap) == [.closed(second, .linkGone)])
        // A new link on the same handle starts unencrypted.
        l2cap.linkConnected(L2CAPLink(handle: handle, role: .peripheral, peer: phone))
        l2cap.receive(frame("0e00 0500 14 03 0a00 8000 4100 0002 1700 0500"), on: handle)
        #expect(drain(&l2cap) == [.transmit(handle, frame("0e00 0500 15 03 0a00 0000 0000 0000 0000 0800"))])
    }
}
