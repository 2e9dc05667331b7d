import BluetoothCore
@testable import HCI
@testable import L2CAP

/// ACL packets as a controller delivers them (any boundary flags, any
/// lengths, three links, one unknown to L2CAP) through the reassembler into
/// L2CAP, and our own frames through fragmentation and back.
enum ACLL2CAPTarget {
    static let target = FuzzTarget(name: "acl-l2cap", run: run, seeds: seeds)

    static let links = [ConnectionHandle(0x0040), ConnectionHandle(0x0041), ConnectionHandle(0x0042)]
    static let phone = BluetoothAddress("4A:11:22:33:44:55", kind: .random)!

    static func connect(_ l2cap: inout L2CAPLayer, _ index: Int) {
        // 0x0040: we are central; 0x0041: we are peripheral; 0x0042 never connects.
        guard index < 2 else { return }
        l2cap.linkConnected(L2CAPLink(handle: links[index], role: index == 0 ? .central : .peripheral, peer: phone))
    }

    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        var reassembler = ACLReassembler()
        var l2cap = L2CAPLayer()
        connect(&l2cap, 0)
        connect(&l2cap, 1)
        var redaction = TraceRedaction(secretAttributes: [0x000E])
        var operations = 0
        while !input.isAtEnd, operations < 1_000 {
            operations += 1
            let op = input.byte()
            let index = Int(op >> 3) % links.count
            let handle = links[index]
            switch op & 0x07 {
            case 0...4:
                let packet = ACLPacket(handle: handle, boundary: PacketBoundary(rawValue: (op >> 5) & 0x03)!, data: input.chunk())
                invariant(ACLPacket(body: packet.packet.body) == packet, "an ACL packet does not parse back from its wire form")
                traced(packet.packet, &redaction, op)
                deliver(packet, &reassembler, &l2cap)
            case 5:
                // The header and length exactly as the bytes say.
                if let packet = ACLPacket(body: input.chunk()) {
                    traced(packet.packet, &redaction, op)
                    deliver(packet, &reassembler, &l2cap)
                }
            case 6:
                ourFrame(&input, handle: handle, &l2cap)
            default:
                reassembler.drop(handle)
                l2cap.linkDisconnected(handle)
                if input.bool() { connect(&l2cap, index) }
            }
        }
    }

    /// The packet as a btsnoop trace keeps it: same type, same length, the
    /// ACL header untouched, every other byte kept or zeroed.
    static func traced(_ packet: HCIPacket, _ redaction: inout TraceRedaction, _ op: UInt8) {
        let out = redaction.redact(packet, direction: op & 0x80 == 0 ? .received : .sent)
        invariant(out.type == packet.type && out.body.count == packet.body.count, "the trace changed a packet's length")
        invariant(out.body.prefix(4) == packet.body.prefix(4), "the trace changed an ACL header")
        for i in 0..<out.body.count {
            invariant(out.body[i] == packet.body[i] || out.body[i] == 0, "the trace wrote something other than zeros")
        }
    }

    static func deliver(_ packet: ACLPacket, _ reassembler: inout ACLReassembler, _ l2cap: inout L2CAPLayer) {
        guard let frame = reassembler.push(packet) else { return }
        invariant(frame.count >= 4 && frame.count == 4 + le16(frame, 0),
                  "reassembled \(frame.count) bytes for an L2CAP length of \(frame.count >= 2 ? le16(frame, 0) : -1)")
        l2cap.receive(frame, on: packet.handle)
        let channel = le16(frame, 2)
        while let event = l2cap.pollEvent() {
            switch event {
            case .att(let h, let payload):
                invariant(h == packet.handle && channel == 0x0004 && Array(payload) == Array(frame[4...]), "ATT payload altered or misrouted")
            case .smp(let h, let payload):
                invariant(h == packet.handle && channel == 0x0006 && payload == Array(frame[4...]), "SMP payload altered or misrouted")
            case .transmit(let h, let out):
                invariant(h == packet.handle && channel == 0x0005, "answered a frame that is not signaling")
                LESignalingTarget.checkAnswer(out)
            case .updateConnectionParameters(_, let parameters):
                invariant(parameters.isValid, "invalid connection parameters accepted")
            }
        }
    }

    /// A frame we send: it must survive fragmentation at any ACL size.
    static func ourFrame(_ input: inout FuzzInput, handle: ConnectionHandle, _ l2cap: inout L2CAPLayer) {
        let payload = input.chunk()
        let channel = ChannelIdentifier(UInt16(input.byte() & 0x07))
        let frame = BasicFrame.encode(channel: channel, payload: payload)
        let decoded = BasicFrame.decode(frame)
        invariant(decoded?.channel == channel && decoded.map { Array($0.payload) } == payload, "basic frame does not round-trip")
        let fragments = ACLPacket.fragments(of: frame, handle: handle, maxLength: Int(input.byte()))
        var reassembler = ACLReassembler()
        for (i, fragment) in fragments.enumerated() {
            let out = reassembler.push(fragment)
            if i + 1 < fragments.count {
                invariant(out == nil, "frame complete after \(i + 1) of \(fragments.count) fragments")
            } else {
                invariant(out == frame, "fragments of our frame do not reassemble to it")
            }
        }
        l2cap.send(payload, on: handle, channel: channel)
        while let event = l2cap.pollEvent() {
            invariant(event == .transmit(handle, frame), "send did not produce exactly our frame")
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        let att = H4.l2cap(channel: 0x0004, [0x0A, 0x03, 0x00])
        let long = H4.l2cap(channel: 0x0004, [0x1B, 0x2A, 0x00] + [UInt8](repeating: 0x61, count: 60))
        let signaling = H4.l2cap(channel: 0x0005, [0x12, 0x07, 0x08, 0x00, 0x18, 0x00, 0x28, 0x00, 0x00, 0x00, 0x90, 0x01])
        let smp = H4.l2cap(channel: 0x0006, [0x0B, 0x2D])
        func packet(_ op: UInt8, _ bytes: [UInt8]) -> [UInt8] { var s = Script(); s.byte(op); s.chunk(bytes); return s.bytes }
        // op: bits 0-2 kind (0-4 structured packet), bits 3-4 link, bits 5-6 boundary.
        let start: UInt8 = 0b10 << 5, more: UInt8 = 0b01 << 5
        return [
            ("att-one-packet", packet(start, att)),
            ("att-three-fragments", packet(start, Array(long[0..<27])) + packet(more, Array(long[27..<54])) + packet(more, Array(long[54...]))),
            ("signaling-central", packet(start, signaling)),
            ("signaling-peripheral", packet(start | 0x08, signaling)),
            ("smp", packet(start, smp)),
            ("continuation-without-start", packet(more, Array(long[27...]))),
            ("start-interrupts-start", packet(start, Array(long[0..<10])) + packet(start, att)),
            ("overrun", packet(start, att + [0xEE, 0xEE])),
            ("unknown-link", packet(start | 0x10, att)),
            ("raw-body", packet(5, [0x40, 0x20, UInt8(att.count), 0x00] + att)),
            ("our-frame", { var s = Script(); s.byte(6); s.chunk([0x1B, 0x03, 0x00, 1, 2, 3]); s.byte(4); s.byte(3); return s.bytes }()),
            ("link-lost-mid-frame", packet(start, Array(long[0..<27])) + [7, 1] + packet(more, Array(long[27...]))),
        ]
    }
}
