import BluetoothCore
import Testing
@testable import HCI

@Suite struct H4FramerTests {
    // Command Complete for Reset, an ACL fragment with a 5-byte ATT PDU, and
    // a Disconnection Complete: three packet types with three length layouts.
    let stream: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
        + [0x02, 0x40, 0x20, 0x09, 0x00, 0x05, 0x00, 0x04, 0x00, 0x0A, 0x03, 0x00, 0x01, 0x02]
        + [0x04, 0x05, 0x04, 0x00, 0x40, 0x00, 0x13]

    func expectThreePackets(_ packets: [HCIPacket]) {
        #expect(packets.count == 3)
        guard packets.count == 3 else { return }
        #expect(packets[0] == HCIPacket(type: .event, body: [0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]))
        #expect(packets[1].type == .aclData && packets[1].body.count == 13)
        #expect(packets[2] == HCIPacket(type: .event, body: [0x05, 0x04, 0x00, 0x40, 0x00, 0x13]))
    }

    @Test func severalPacketsInOneRead() {
        var framer = H4Framer()
        expectThreePackets(framer.push(stream))
        #expect(framer.pendingCount == 0)
    }

    /// The receive path's way: append each read, take packets until nil.
    @Test func packetsTakenOneAtATime() {
        var framer = H4Framer()
        framer.append(stream + stream.prefix(5))
        var packets: [HCIPacket] = []
        while let packet = framer.next() { packets.append(packet) }
        expectThreePackets(packets)
        #expect(framer.pendingCount == 5)
        framer.append(stream.dropFirst(5))
        packets = []
        while let packet = framer.next() { packets.append(packet) }
        expectThreePackets(packets)
        #expect(framer.pendingCount == 0 && framer.next() == nil)
    }

    @Test func everySplitPointOfTwoReads() {
        for cut in 0...stream.count {
            var framer = H4Framer()
            let packets = framer.push(stream[..<cut]) + framer.push(stream[cut...])
            expectThreePackets(packets)
        }
    }

    @Test func oneByteAtATime() {
        var framer = H4Framer()
        var packets: [HCIPacket] = []
        for byte in stream { packets += framer.push([byte]) }
        expectThreePackets(packets)
    }

    @Test func partialPacketIsHeldUntilComplete() {
        var framer = H4Framer()
        #expect(framer.push(stream.prefix(5)).isEmpty)
        #expect(framer.pendingCount == 5)
    }

    @Test func resynchronisesAfterGarbage() {
        var framer = H4Framer()
        let packets = framer.push([0xFF, 0x00, 0x01] + stream)
        expectThreePackets(packets)
        #expect(framer.droppedBytes == 3)
    }
}
