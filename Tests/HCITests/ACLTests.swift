import BluetoothCore
import Testing
@testable import HCI
import ScriptedPeers

@Suite struct ACLTests {
    let peer = BluetoothAddress("C4:11:22:33:44:55", kind: .random)!
    let handle = ConnectionHandle(0x40)

    func connectedHost(aclCount: UInt8 = 2) -> (Host, ScriptedController) {
        let host = Host()
        var controller = ScriptedController()
        controller.aclCount = aclCount
        _ = controller.bringUp(host)
        host.receive(ScriptedController.connectionComplete(handle: 0x40, peer: peer), now: .zero)
        _ = events(host)
        return (host, controller)
    }

    /// An L2CAP frame on the ATT channel with `payload` bytes.
    func frame(_ payload: Int) -> [UInt8] {
        [UInt8(payload & 0xFF), UInt8(payload >> 8), 0x04, 0x00] + (0..<payload).map { UInt8(truncatingIfNeeded: $0) }
    }

    @Test func fragmentsToTheControllerSizeWithBoundaryFlags() {
        let f = frame(96) // 100 bytes: 27 + 27 + 27 + 19
        let packets = ACLPacket.fragments(of: f, handle: handle, maxLength: 27)
        #expect(packets.map { $0.data.count } == [27, 27, 27, 19])
        #expect(packets.map { $0.boundary } == [.firstNonFlushable, .continuing, .continuing, .continuing])
        #expect(packets.flatMap { $0.data } == f)
        // Wire form: handle 0x040 with PB=00, then PB=01 (0x1040).
        #expect(Array(packets[0].packet.body.prefix(4)) == [0x40, 0x00, 27, 0])
        #expect(Array(packets[1].packet.body.prefix(4)) == [0x40, 0x10, 27, 0])
    }

    @Test func sendingRespectsTheControllerBufferCount() {
        let (host, _) = connectedHost(aclCount: 2)
        host.sendL2CAP(frame(96), on: handle)
        #expect(drain(host).count == 2)
        #expect(host.queuedACLPackets == 2)
        // Number Of Completed Packets: one handle, one packet.
        host.receive(ScriptedController.event(0x13, [0x01, 0x40, 0x00, 0x01, 0x00]), now: .zero)
        #expect(drain(host).count == 1)
        host.receive(ScriptedController.event(0x13, [0x01, 0x40, 0x00, 0x02, 0x00]), now: .zero)
        #expect(drain(host).count == 1)
        #expect(host.queuedACLPackets == 0)
    }

    @Test func disconnectionReturnsBuffersInFlight() {
        let (host, _) = connectedHost(aclCount: 2)
        host.sendL2CAP(frame(96), on: handle)
        _ = drain(host)
        host.receive(ScriptedController.event(0x05, [0x00, 0x40, 0x00, 0x13]), now: .zero)
        #expect(events(host) == [.disconnected(handle: handle, reason: .remoteUserTerminated)])
        // A new link can use both buffers at once.
        host.receive(ScriptedController.connectionComplete(handle: 0x41, peer: peer), now: .zero)
        host.sendL2CAP(frame(60), on: ConnectionHandle(0x41))
        #expect(drain(host).count == 2)
    }

    @Test func reassemblesFragmentsFromTheController() {
        let (host, _) = connectedHost()
        let f = frame(60)
        for (i, chunk) in stride(from: 0, to: f.count, by: 27).enumerated() {
            let data = Array(f[chunk..<min(f.count, chunk + 27)])
            let pb: PacketBoundary = i == 0 ? .firstFlushable : .continuing
            host.receive(ACLPacket(handle: handle, boundary: pb, data: data).packet.h4Bytes, now: .zero)
        }
        #expect(events(host) == [.l2capFrame(handle: handle, frame: f[...])])
    }

    @Test func frameLongerThanItsHeaderSaysIsDropped() {
        var r = ACLReassembler()
        let f = frame(10)
        #expect(r.push(ACLPacket(handle: handle, boundary: .firstFlushable, data: Array(f.prefix(8)))) == nil)
        #expect(r.push(ACLPacket(handle: handle, boundary: .continuing, data: Array(f.suffix(6)) + [0xEE])) == nil)
        #expect(r.droppedFrames == 1)
        // The next frame is unaffected.
        #expect(r.push(ACLPacket(handle: handle, boundary: .firstFlushable, data: f)) == f)
    }

    @Test func continuationWithoutStartIsDropped() {
        var r = ACLReassembler()
        #expect(r.push(ACLPacket(handle: handle, boundary: .continuing, data: [1, 2, 3])) == nil)
        #expect(r.droppedFrames == 1)
    }

    @Test func newStartAbandonsAnUnfinishedFrame() {
        var r = ACLReassembler()
        let f = frame(30)
        #expect(r.push(ACLPacket(handle: handle, boundary: .firstFlushable, data: Array(f.prefix(10)))) == nil)
        #expect(r.push(ACLPacket(handle: handle, boundary: .firstFlushable, data: f)) == f)
        #expect(r.droppedFrames == 1)
    }

    @Test func headerSplitAcrossFragments() {
        var r = ACLReassembler()
        let f = frame(3)
        #expect(r.push(ACLPacket(handle: handle, boundary: .firstFlushable, data: [f[0]])) == nil)
        #expect(r.push(ACLPacket(handle: handle, boundary: .continuing, data: Array(f[1...]))) == f)
    }

    @Test func aclLengthFieldMismatchIsRejected() {
        #expect(ACLPacket(body: [0x40, 0x20, 0x05, 0x00, 1, 2]) == nil)
        #expect(ACLPacket(body: [0x40]) == nil)
    }
}
