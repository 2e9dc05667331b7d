import BluetoothCore
@testable import L2CAP

/// LE credit based channels driven by a hostile peer and a busy owner: the
/// peer's signaling (connection requests, credits, disconnections, their
/// responses) and K-frames on any dynamic CID, the owner's SDUs and
/// closes, encryption coming and going, links dropping. Every frame we send
/// is well-formed; a connection succeeds only to a published service whose
/// security the link meets; what we keep stays within its bounds (credits,
/// reassembly, channels per link); every SDU we send arrives whole and in
/// order when its K-frames are put together again, none above the peer's
/// MPS; every SDU we deliver fits our MTU; the opened and closed events
/// tell exactly which channels are open.
enum CreditBasedChannelTarget {
    static let target = FuzzTarget(name: "credit-based-channels", run: run, seeds: seeds)

    static let handles = [ConnectionHandle(0x0040), ConnectionHandle(0x0041)]
    static let services = [
        ChannelService(security: .encrypted, mtu: 100, mps: 23, credits: 3),
        ChannelService(security: .none, mtu: 2048, mps: 247),
    ]

    /// What the target expects of one open channel's outgoing direction.
    struct Sent {
        var channel: ChannelEndpoint
        var remote: UInt16
        var sdus: [[UInt8]] = []
        var reassembly: [UInt8] = []
        var expected: Int?
    }

    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        var l2cap = L2CAPLayer()
        let phone = BluetoothAddress("4A:11:22:33:44:55", kind: .random)!
        for handle in handles { l2cap.linkConnected(L2CAPLink(handle: handle, role: .peripheral, peer: phone)) }
        let spsms = services.map { l2cap.publish($0)! }
        var encrypted = [false, false]
        var open: [Sent] = []
        var steps = 0
        while !input.isAtEnd, steps < 500 {
            steps += 1
            let op = input.byte()
            let link = Int(op >> 7)
            let handle = handles[link]
            var request: (spsm: UInt16, source: UInt16, mtu: UInt16, mps: UInt16)?
            switch op & 0x07 {
            case 0, 1:
                // A signaling command; code 0x14 most of the time.
                let code = op & 0x08 == 0 ? 0x14 : input.byte()
                let identifier = input.byte() | 1
                let body = op & 0x10 == 0 ? Array(connectionRequest(&input)) : input.chunk()
                if code == 0x14, body.count == 10 {
                    request = (UInt16(body[0]) | UInt16(body[1]) << 8, UInt16(body[2]) | UInt16(body[3]) << 8,
                               UInt16(body[4]) | UInt16(body[5]) << 8, UInt16(body[6]) | UInt16(body[7]) << 8)
                }
                let payload = [code, identifier, UInt8(body.count & 0xFF), UInt8(body.count >> 8)] + body
                l2cap.receive(BasicFrame.encode(channel: .leSignaling, payload: payload), on: handle)
            case 2:
                // Credits for a channel (its peer CID, mostly right).
                let target = open.isEmpty ? nil : open[Int(input.byte()) % open.count]
                let cid = target.map { $0.remote } ?? UInt16(0x40 + input.byte() % 0x40)
                let credits = input.u16()
                let payload: [UInt8] = [0x16, input.byte() | 1, 4, 0, UInt8(cid & 0xFF), UInt8(cid >> 8), UInt8(credits & 0xFF), UInt8(credits >> 8)]
                l2cap.receive(BasicFrame.encode(channel: .leSignaling, payload: payload), on: target?.channel.handle ?? handle)
            case 3:
                // A K-frame: on an open channel, or on any dynamic CID.
                let target = open.isEmpty || op & 0x08 != 0 ? nil : open[Int(input.byte()) % open.count]
                let cid = target.map { $0.channel.local } ?? ChannelIdentifier(UInt16(0x40 + input.byte() % 0x40))
                var payload = input.chunk()
                if op & 0x10 != 0 { payload = [UInt8(payload.count & 0xFF), 0] + payload }
                l2cap.receive(BasicFrame.encode(channel: cid, payload: payload), on: target?.channel.handle ?? handle)
            case 4:
                // The owner sends an SDU of up to 3000 bytes.
                guard !open.isEmpty else { continue }
                let i = Int(input.byte()) % open.count
                let size = Int(input.u16()) % 3000
                let sdu = (0..<size).map { UInt8(truncatingIfNeeded: $0 &+ steps) }
                if l2cap.sendSDU(sdu, on: open[i].channel) { open[i].sdus.append(sdu) }
            case 5:
                guard !open.isEmpty else { continue }
                l2cap.closeChannel(open[Int(input.byte()) % open.count].channel)
            case 6:
                encrypted[link].toggle()
                l2cap.setLinkEncrypted(handle, encrypted[link])
            default:
                l2cap.linkDisconnected(handle)
                l2cap.linkConnected(L2CAPLink(handle: handle, role: .peripheral, peer: phone))
                encrypted[link] = false
            }
            check(&l2cap, &open, request: request, on: handle, encrypted: encrypted[link], spsms: spsms)
        }
    }

    /// A well-formed LE Credit Based Connection Request body from 7 bytes of input.
    static func connectionRequest(_ input: inout FuzzInput) -> [UInt8] {
        let shape = input.byte()
        var w = ByteWriter()
        w.u16(shape & 0x01 == 0 ? 0x0080 + UInt16(shape >> 1 & 0x03) : input.u16())
        w.u16(shape & 0x08 == 0 ? 0x0040 + UInt16(input.byte() % 0x48) : input.u16())
        w.u16(shape & 0x10 == 0 ? 23 + UInt16(input.byte()) * 8 : input.u16())
        w.u16(shape & 0x20 == 0 ? 23 + UInt16(input.byte()) : input.u16())
        w.u16(UInt16(input.byte()))
        return w.bytes
    }

    static func check(_ l2cap: inout L2CAPLayer, _ open: inout [Sent],
                      request: (spsm: UInt16, source: UInt16, mtu: UInt16, mps: UInt16)?,
                      on handle: ConnectionHandle, encrypted: Bool, spsms: [SPSM]) {
        while let event = l2cap.pollEvent() {
            guard case .transmit(let h, let frame) = event, let (cid, payload) = BasicFrame.decode(frame) else {
                invariant(false, "channels produced \(event)")
                continue
            }
            if cid == .leSignaling {
                let bytes = Array(payload)
                invariant(bytes.count >= 4 && le16(bytes, 2) == bytes.count - 4, "signaling length field is wrong")
                invariant(bytes.count <= L2CAPLayer.signalingMTU && bytes[1] != 0, "signaling frame too long or identifier 0")
                if bytes[0] == 0x15, bytes.count == 14, le16(bytes, 12) == 0, let request {
                    let spsm = SPSM(request.spsm)
                    let index = spsms.firstIndex(of: spsm)
                    invariant(index != nil, "a channel opened to an unpublished \(spsm)")
                    invariant(index.map { services[$0].security == .none } ?? false || encrypted, "an encrypted-only channel opened on an unencrypted link")
                    invariant(request.mtu >= 23 && request.mps >= 23 && request.mps <= 65533, "a channel opened with MTU \(request.mtu), MPS \(request.mps)")
                    invariant((0x40...0x7F).contains(request.source), "a channel opened to source CID \(request.source)")
                }
                continue
            }
            // A K-frame of ours: on an open channel, within its peer's MPS.
            guard let i = open.firstIndex(where: { $0.channel.handle == h && $0.remote == cid.rawValue }) else {
                invariant(false, "a K-frame on \(cid), which is no open channel's peer CID")
                continue
            }
            let channel = l2cap.channel(open[i].channel)
            invariant(channel == nil || payload.count <= Int(channel!.peerMPS), "a K-frame above the peer's MPS")
            var bytes = payload[...]
            if open[i].expected == nil {
                invariant(payload.count >= 2, "a first K-frame without the SDU length")
                var r = ByteReader(payload)
                open[i].expected = Int(r.u16() ?? 0)
                bytes = r.rest()
            }
            open[i].reassembly += bytes
            invariant(open[i].reassembly.count <= open[i].expected!, "K-frames past the SDU length")
            if open[i].reassembly.count == open[i].expected! {
                invariant(!open[i].sdus.isEmpty && open[i].sdus.removeFirst() == open[i].reassembly, "an SDU arrived other than sent")
                open[i].reassembly = []
                open[i].expected = nil
            }
        }
        while let event = l2cap.pollChannelEvent() {
            switch event {
            case let .opened(channel, _):
                invariant(!open.contains { $0.channel == channel }, "\(channel) opened twice")
                let remote = l2cap.channel(channel)?.remote.rawValue ?? 0
                open.append(Sent(channel: channel, remote: remote))
            case .received(let sdu):
                invariant(open.contains { $0.channel == sdu.channel }, "an SDU on a channel not open")
                let mtu = services[spsms.firstIndex(of: sdu.channel.spsm) ?? 0].mtu
                invariant(sdu.bytes.count <= Int(mtu), "an SDU above our MTU")
            case let .closed(channel, _):
                invariant(open.contains { $0.channel == channel }, "\(channel) closed but not open")
                open.removeAll { $0.channel == channel }
            }
        }
        // Our state within its bounds, and as the events told it.
        invariant(open.count == l2cap.creditBased.channels.count, "the events tell \(open.count) channels, L2CAP keeps \(l2cap.creditBased.channels.count)")
        for channel in l2cap.creditBased.channels {
            invariant((0...65535).contains(channel.sendCredits), "send credits \(channel.sendCredits)")
            invariant((0...Int(channel.service.credits)).contains(channel.receiveCredits), "receive credits \(channel.receiveCredits)")
            invariant(channel.reassembly.count <= (channel.expectedLength ?? 0), "reassembly past the SDU length")
            invariant((channel.expectedLength ?? 0) <= Int(channel.service.mtu), "an SDU in reassembly above our MTU")
            invariant(channel.local.isDynamicLE && channel.remote.isDynamicLE, "a channel on a fixed CID")
            invariant(l2cap.creditBased.channels.filter { $0.handle == channel.handle && $0.local == channel.local }.count == 1, "a CID allocated twice")
            invariant(l2cap.creditBased.channelCount(on: channel.handle) <= CreditBasedChannels.channelsPerLink, "too many channels on a link")
            invariant(channel.framesWaiting == 0 || channel.sendCredits == 0, "K-frames wait while credits are left")
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        func open(link: UInt8 = 0, spsm: UInt8 = 0, source: UInt8 = 1, mtu: UInt8 = 255, mps: UInt8 = 0, credits: UInt8 = 4) -> [UInt8] {
            // op 0 (request), identifier, shape 0: SPSM 0x0080 + spsm, CID 0x40 + source, MTU 23 + 8·mtu, MPS 23 + mps, credits.
            [link << 7, 1, spsm << 1, source, mtu, mps, credits]
        }
        let encrypt: [UInt8] = [0x06]
        let sendLarge: [UInt8] = [0x04, 0, 0xC8, 0x00]            // 200 bytes
        let credits: [UInt8] = [0x02, 0, 0x05, 0x00, 2]         // 5 credits
        // An SDU in one K-frame, then one of 30 bytes in three.
        let kFrames: [UInt8] = [0x13, 0, 5, 1, 2, 3, 4, 5] + [0x03, 0, 4, 30, 0, 1, 2]
            + [0x03, 0, 20] + [UInt8](repeating: 7, count: 20) + [0x03, 0, 8] + [UInt8](repeating: 8, count: 8)
        return [
            ("open-encrypted", encrypt + open()),
            ("open-unencrypted-refused", open()),
            ("open-plain-and-send", open(spsm: 1) + sendLarge + credits + sendLarge),
            ("receive-sdus", encrypt + open() + kFrames + kFrames),
            ("close-and-reopen", open(spsm: 1) + [0x05, 0] + open(spsm: 1)),
            ("link-drops", open(spsm: 1) + sendLarge + [0x07] + open(spsm: 1)),
            ("credit-overflow", open(spsm: 1) + [0x02, 0, 0xFF, 0xFF, 3]),
            ("disconnection", open(spsm: 1) + [0x18, 0x06, 7, 4, 0x40, 0x00, 0x41, 0x00]),
        ]
    }
}
