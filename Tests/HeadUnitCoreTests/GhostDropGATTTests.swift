import ATT
import BluetoothCore
import GhostDrop
import GhostDropFixture
@testable import HeadUnitCore
import ScriptedPeers
import Testing

/// GhostDrop's GATT service through the whole core: the capabilities with
/// the published SPSM, writes refused on a plain link, and a frame written
/// in GD fragments answered by notifications on data of at most
/// ATT_MTU − 3 bytes.
@Suite struct GhostDropGATTTests {
    func write(_ rig: CoreRig, _ handle: AttributeHandle, _ value: [UInt8], command: Bool = false) {
        rig.phoneSends([command ? 0x52 : 0x12, UInt8(handle.value & 0xFF), UInt8(handle.value >> 8)] + value)
    }

    /// The frames the head unit notified on data, joined.
    func notifiedFrames(_ rig: CoreRig, now: Instant = Instant(milliseconds: 0)) throws -> (frames: [[UInt8]], values: [[UInt8]]) {
        let data = rig.core.ghostDropGATT.data
        let values = rig.phone.fromHeadUnitServer.filter { $0.first == 0x1B && $0.count >= 3 && UInt16($0[1]) | UInt16($0[2]) << 8 == data.value }
            .map { Array($0.dropFirst(3)) }
        var joiner = GhostGATTFragments()
        var frames: [[UInt8]] = []
        for value in values { if let frame = try joiner.receive(value, now: now) { frames.append(frame) } }
        return (frames, values)
    }

    @Test func theCapabilitiesNameThePublishedSPSMAndAnyoneMayReadThem() throws {
        let (rig, _) = try settingsRig()
        let spsm = try #require(rig.core.ghostDrop.spsm)
        rig.phoneConnectsToUs()
        let handle = rig.core.ghostDropGATT.capabilities
        rig.phoneSends([0x0A, UInt8(handle.value & 0xFF), UInt8(handle.value >> 8)])
        let response = try #require(rig.phone.fromHeadUnitServer.last)
        #expect(response.first == 0x0B)
        let json = String(decoding: response.dropFirst(), as: UTF8.self)
        #expect(json.hasPrefix("{\"capabilities\":{\"supportsL2CAP\":true,"), "\(json)")
        #expect(json.hasSuffix(",\"psm\":\(spsm.rawValue)}"), "\(json)")
    }

    @Test func writesNeedEncryptionAndAFrameIsAnsweredInNotificationsOfTheMTU() throws {
        let (rig, phone) = try settingsRig { $0.phone.maximumMTU = 64 }
        rig.phoneConnectsToUs()
        let handles = rig.core.ghostDropGATT
        write(rig, handles.control, [0x47, 0x44])
        // Error Response to the Write Request: Insufficient Authentication.
        #expect(rig.phone.fromHeadUnitServer.last == [0x01, 0x12, UInt8(handles.control.value & 0xFF), UInt8(handles.control.value >> 8), 0x05])

        try pairFromSettings(rig, phone)
        write(rig, AttributeHandle(handles.data.value + 1), [0x01, 0x00])
        // A frame that is no GHST frame, in two fragments written without response.
        var sender = GhostGATTFragments()
        let bogus = Array("XXXX not a GhostDrop frame at all".utf8)
        let values = sender.fragments(of: bogus, packetSize: 24, control: false)
        #expect(values.count == 3)
        for value in values.reversed() { write(rig, handles.data, value, command: true) }
        #expect(rig.events.last == .ghostDrop(.ended(reason: "Malformed frame: no GHST magic", byPeer: false, resumable: false)))

        // The receiver's cancel, notified in values of at most ATT_MTU − 3 (61) bytes.
        let (frames, notified) = try notifiedFrames(rig)
        #expect(notified.count > 1 && notified.allSatisfy { $0.count <= 61 }, "\(notified.map(\.count))")
        let cancel = try #require(frames.last)
        #expect(Array(cancel.prefix(6)) == [0x47, 0x48, 0x53, 0x54, 0x01, 0x0A])
        #expect(String(decoding: cancel.dropFirst(10), as: UTF8.self) == "{\"cancel\":{\"reason\":\"Malformed frame: no GHST magic\"}}")
    }

    /// The recorded transfer's first session, its frames written as the
    /// reference's GATT transport writes them (data frames without
    /// response on data, the others as requests on control): the frames the
    /// core notifies are, joined, the bytes the recorded sender expected.
    @Test func theRecordedTransferRunsOverGATT() throws {
        let fixture = try TransferFixture.load()
        let session = fixture.sessions[0]
        let (rig, phone) = try settingsRig { $0.phone.maximumMTU = 247 }
        try pairFromSettings(rig, phone)
        rig.core.ghostDrop.random = queuedRandom(session.receiverRandom)
        let handles = rig.core.ghostDropGATT
        write(rig, AttributeHandle(handles.data.value + 1), [0x01, 0x00])
        var sender = GhostGATTFragments()
        var expected: [UInt8] = []
        steps: for step in session.steps {
            switch step {
            case .sender(let frame):
                let data = frame.count > 5 && frame[5] == GhostFrameKind.data.rawValue
                for value in sender.fragments(of: frame, packetSize: 244, control: !data) {
                    write(rig, data ? handles.data : handles.control, value, command: data)
                }
            case .receiver(let bytes): expected += bytes
            case .confirm:
                rig.core.command(.confirm, now: rig.now)
                rig.settle()
            case .disconnect: break steps
            }
        }
        let (frames, values) = try notifiedFrames(rig)
        #expect(!expected.isEmpty && frames.flatMap { $0 } == expected)
        #expect(values.allSatisfy { $0.count <= 244 })
    }

    @Test func aValueThatIsNoFragmentCancelsTheSessionWithTheReason() throws {
        let (rig, phone) = try settingsRig { $0.phone.maximumMTU = 247 }
        try pairFromSettings(rig, phone)
        let handles = rig.core.ghostDropGATT
        write(rig, AttributeHandle(handles.data.value + 1), [0x01, 0x00])
        // The first fragment of a hello starts nothing yet ...
        var sender = GhostGATTFragments()
        guard case .sender(let hello) = try TransferFixture.load().sessions[0].steps[0] else {
            Issue.record("the recording starts with the sender's hello")
            return
        }
        write(rig, handles.control, sender.fragments(of: hello, packetSize: 100, control: true)[0])
        #expect(rig.core.ghostDrop.channels.isEmpty)
        // ... a whole frame does; then a value without the GD header ends it.
        for value in sender.fragments(of: hello, packetSize: 244, control: true) { write(rig, handles.control, value) }
        #expect(rig.core.ghostDrop.channels.count == 1)
        write(rig, handles.control, [0x00, 0x01, 0x02])
        #expect(rig.events.last == .ghostDrop(.ended(reason: "no GD fragment header", byPeer: false, resumable: false)),
                "\(String(describing: rig.events.last))")
    }

    /// A GATT sender the head unit does not take files from is told why
    /// once its first frame is whole, and the kept transfer stays as it was.
    @Test func aRefusedGATTSenderIsCancelledWithoutTouchingTheKeptTransfer() throws {
        var (ghostDrop, kept) = GhostDropTransferTests.keepingATransfer()
        guard case .sender(let hello) = try TransferFixture.load().sessions[0].steps[0] else {
            Issue.record("the recording starts with the sender's hello")
            return
        }
        let link = ConnectionHandle(7)
        ghostDrop.gattReceived(hello, on: link, refusal: "Only the head unit's paired phone may send files", now: .zero)
        GhostDropTransferTests.expectRefused(&ghostDrop, keeping: kept)
        let popped = ghostDrop.gattOutgoing.popFirst()
        let out = try #require(popped)
        #expect(out.handle == link)
        var frames = GhostFrameStream()
        frames.append(out.frame)
        #expect(try frames.next() == .cancel(reason: "Only the head unit's paired phone may send files"))
        // Its next frames go to the finished session: nothing more is said.
        ghostDrop.gattReceived(GhostFrameCodec.encode(.ping(id: 1)), on: link, refusal: "Only the head unit's paired phone may send files", now: .zero)
        #expect(ghostDrop.reports.isEmpty && ghostDrop.gattOutgoing.isEmpty)
        // The link going down ends its session.
        ghostDrop.end(.gatt(link), now: .zero)
        #expect(ghostDrop.channels.isEmpty)
    }
}
