import Testing
import BluetoothCore
@testable import HCI

/// Key material zeroed in btsnoop records, lengths kept (TraceRedaction).
@Suite struct TraceRedactionTests {
    let ltk: [UInt8] = Array(0xA0...0xAF)
    let irk: [UInt8] = Array(0xB0...0xBF)
    let link = ConnectionHandle(0x0040)

    func redacted(_ packet: HCIPacket, _ redaction: inout TraceRedaction, _ direction: TraceDirection = .sent) -> [UInt8] {
        let out = redaction.redact(packet, direction: direction)
        #expect(out.type == packet.type)
        #expect(out.body.count == packet.body.count, "lengths are kept")
        return out.body
    }

    /// Zero bytes where `secret` is in `body`, everything else the same.
    func zeroed(_ body: [UInt8], _ secret: [UInt8]) -> [UInt8] {
        var out = body
        for start in 0...(body.count - secret.count) where Array(body[start..<start + secret.count]) == secret {
            for i in start..<start + secret.count { out[i] = 0 }
        }
        return out
    }

    @Test func ltksInHCICommandsAreZeroed() {
        var r = TraceRedaction()
        let reply = HCICommand.leLongTermKeyRequestReply(link, ltk: ltk).packet
        #expect(redacted(reply, &r) == [0x1A, 0x20, 18, 0x40, 0x00] + [UInt8](repeating: 0, count: 16))
        let enable = HCICommand.leEnableEncryption(link, random: 0x0102_0304_0506_0708, ediv: 0x1234, ltk: ltk).packet
        let body = redacted(enable, &r)
        #expect(body == zeroed(enable.body, ltk))
        #expect(Array(body[5..<15]) == [8, 7, 6, 5, 4, 3, 2, 1, 0x34, 0x12], "Random and EDIV stay")
        let add = HCICommand.leAddDeviceToResolvingList(BluetoothAddress("11:22:33:44:55:66")!, peerIRK: irk, localIRK: ltk).packet
        #expect(redacted(add, &r) == zeroed(zeroed(add.body, irk), ltk))
        // Other commands pass untouched.
        let reset = HCICommand.reset().packet
        #expect(redacted(reset, &r) == reset.body)
    }

    /// SMP key distribution (Core Vol 3 Part H 3.6): LTK, IRK and CSRK go,
    /// Central Identification and Identity Address Information stay.
    @Test func smpKeyDistributionIsZeroed() {
        var r = TraceRedaction()
        func smp(_ pdu: [UInt8]) -> HCIPacket {
            ACLPacket(handle: link, boundary: .firstFlushable, data: [UInt8(pdu.count), 0, 0x06, 0x00] + pdu).packet
        }
        for code: UInt8 in [0x06, 0x08, 0x0A] {
            let packet = smp([code] + ltk)
            #expect(redacted(packet, &r, .received) == zeroed(packet.body, ltk))
        }
        let central = smp([0x07, 0x34, 0x12] + [1, 2, 3, 4, 5, 6, 7, 8])
        #expect(redacted(central, &r) == central.body)
        let random = smp([0x04] + ltk)
        #expect(redacted(random, &r) == random.body, "Pairing Random crosses the air in clear")
    }

    /// NotifBridge key exchange: every write form to the secret handle,
    /// across ACL fragments; other handles untouched.
    @Test func writesToASecretAttributeAreZeroedInEveryFragment() {
        var r = TraceRedaction(secretAttributes: [0x000E])
        let seed = Array(repeating: UInt8(0x5A), count: 60)
        for (header, direction) in [([UInt8(0x12), 0x0E, 0x00], TraceDirection.received),
                                    ([0x52, 0x0E, 0x00], .received),
                                    ([0x16, 0x0E, 0x00, 0x12, 0x00], .received),
                                    ([0x17, 0x0E, 0x00, 0x12, 0x00], .sent)] {
            let att = header + seed
            let frame = [UInt8(att.count), 0, 0x04, 0x00] + att
            let fragments = ACLPacket.fragments(of: frame, handle: link, maxLength: 27)
            #expect(fragments.count == 3)
            var joined: [UInt8] = []
            for fragment in fragments { joined += Array(redacted(fragment.packet, &r, direction).dropFirst(4)) }
            #expect(joined == [UInt8(att.count), 0, 0x04, 0x00] + header + [UInt8](repeating: 0, count: seed.count))
            // The same write to another handle is left alone, fragments and all.
            var other = frame
            other[5] = 0x10
            for fragment in ACLPacket.fragments(of: other, handle: link, maxLength: 27) {
                #expect(redacted(fragment.packet, &r, direction) == fragment.packet.body)
            }
            // So is the head unit's own write to handle 0x000E of the phone.
            let ours: TraceDirection = direction == .sent ? .received : .sent
            for fragment in fragments {
                #expect(redacted(fragment.packet, &r, ours) == fragment.packet.body)
            }
        }
    }

    @Test func aLinkKeyEventIsZeroed() {
        var r = TraceRedaction()
        let dhKey = HCIPacket(type: .event, body: [0x3E, 34, 0x09, 0x00] + ltk + irk)
        #expect(redacted(dhKey, &r, .received) == [0x3E, 34, 0x09, 0x00] + [UInt8](repeating: 0, count: 32))
    }
}
