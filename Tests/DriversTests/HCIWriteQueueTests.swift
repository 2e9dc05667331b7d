import HCI
import Testing
@testable import Drivers

/// How queued H4 packets are cut into write(2) calls: a stream gets all of
/// them at once, a user-channel socket one packet per write.
@Suite struct HCIWriteQueueTests {
    // HCI Reset and LE Read Buffer Size [v1], as the host sends them at start-up.
    let reset = HCIPacket(type: .command, body: [0x03, 0x0C, 0x00])
    let readBufferSize = HCIPacket(type: .command, body: [0x02, 0x20, 0x00])

    @Test func streamTakesEveryQueuedPacketInOneWrite() {
        var queue = HCIWriteQueue(packetOriented: false)
        queue.append(reset)
        queue.append(readBufferSize)
        #expect(Array(queue.nextWrite) == [0x01, 0x03, 0x0C, 0x00, 0x01, 0x02, 0x20, 0x00])
        queue.written(8)
        #expect(queue.isEmpty)
        #expect(queue.nextWrite.isEmpty)
    }

    @Test func streamResumesAfterAShortWrite() {
        var queue = HCIWriteQueue(packetOriented: false)
        queue.append(reset)
        queue.append(readBufferSize)
        queue.written(3)
        #expect(!queue.isEmpty)
        #expect(Array(queue.nextWrite) == [0x00, 0x01, 0x02, 0x20, 0x00])
        // Queued while the rest waits: it follows in the same write.
        queue.append(reset)
        #expect(Array(queue.nextWrite) == [0x00, 0x01, 0x02, 0x20, 0x00, 0x01, 0x03, 0x0C, 0x00])
        queue.written(9)
        #expect(queue.isEmpty)
    }

    @Test func packetSocketTakesOnePacketPerWrite() {
        var queue = HCIWriteQueue(packetOriented: true)
        queue.append(reset)
        queue.append(readBufferSize)
        #expect(Array(queue.nextWrite) == [0x01, 0x03, 0x0C, 0x00])
        queue.written(4)
        #expect(Array(queue.nextWrite) == [0x01, 0x02, 0x20, 0x00])
        queue.written(4)
        #expect(queue.isEmpty)
    }

    @Test func aSlowStreamKeepsItsOrderAcrossCompaction() {
        var queue = HCIWriteQueue(packetOriented: false)
        let data = HCIPacket(type: .aclData, body: [0x40, 0x00, 0xFB, 0x00] + [UInt8](repeating: 0xA5, count: 251))
        for _ in 0..<40 { queue.append(data) }
        var written: [UInt8] = []
        // The transport takes 1,000 bytes at a time (more than the
        // compaction threshold over the run), while more keeps arriving.
        var appended = 40
        while !queue.isEmpty {
            let chunk = queue.nextWrite.prefix(1000)
            written += chunk
            queue.written(chunk.count)
            if appended < 60 { queue.append(data); appended += 1 }
        }
        #expect(written.count == 60 * 256)
        #expect(stride(from: 0, to: written.count, by: 256).allSatisfy { written[$0] == 0x02 && written[$0 + 1] == 0x40 })
    }
}
