import BluetoothCore
import GhostDrop
import GhostDropFixture
import Testing

@Suite struct GATTFragmentsTests {
    /// The simulated phone's GATT values for the recorded session join back
    /// into its frames, and the receiver fed them answers as over L2CAP.
    @Test func thePhonesValuesJoinIntoItsFrames() throws {
        let fixture = try TransferFixture.load()
        let session = fixture.sessions[0]
        let frames = session.steps.compactMap { step -> [UInt8]? in if case .sender(let b) = step { return b } else { return nil } }
        var joiner = GhostGATTFragments()
        var joined: [[UInt8]] = []
        for value in fixture.gattValues {
            #expect(value.count <= 20)
            if let frame = try joiner.receive(value, now: .zero) { joined.append(frame) }
        }
        #expect(joined == frames)
        #expect(joined.count == 7)

        // Our values of the same frames are the phone's, byte for byte.
        var cutter = GhostGATTFragments()
        let ours = frames.flatMap { cutter.fragments(of: $0, packetSize: 20, control: $0[5] != GhostFrameKind.data.rawValue) }
        #expect(ours == fixture.gattValues)
    }

    let frame = GhostFrameCodec.encode(.data(sequence: 3, payload: Array(repeating: 0xAB, count: 300)))

    @Test func fragmentsJoinInAnyOrder() throws {
        var out = GhostGATTFragments()
        let values = out.fragments(of: frame, packetSize: 23 - 3, control: false)
        #expect(values.count == (frame.count + 8) / 9)
        #expect(values.allSatisfy { $0.count <= 20 })
        #expect(Array(values[0][0..<11]) == [0x47, 0x44, 0, 0, 0, 1, 0, 0, 0, UInt8(values.count), 0])
        var joined: [UInt8]? = nil
        var into = GhostGATTFragments()
        for value in values.reversed() {
            #expect(joined == nil)
            joined = try into.receive(value, now: .zero)
        }
        #expect(joined == frame)
        // The next frame gets the next ID, and a control flag.
        #expect(Array(out.fragments(of: [1, 2], packetSize: 100, control: true)[0][2..<11]) == [0, 0, 0, 2, 0, 0, 0, 1, 1])
    }

    @Test func interleavedFramesComeOutWhole() throws {
        var out = GhostGATTFragments()
        let a = out.fragments(of: frame, packetSize: 60, control: false)
        let other = GhostFrameCodec.encode(.cancel(reason: "x"))
        let b = out.fragments(of: other, packetSize: 20, control: true)
        var into = GhostGATTFragments()
        var frames: [[UInt8]] = []
        for i in 0..<max(a.count, b.count) {
            for list in [a, b] where i < list.count {
                if let f = try into.receive(list[i], now: .zero) { frames.append(f) }
            }
        }
        #expect(frames.count == 2)
        #expect(frames.contains(frame) && frames.contains(other))
    }

    @Test func staleAndBadFragmentsAreDropped() throws {
        var out = GhostGATTFragments()
        let values = out.fragments(of: frame, packetSize: 100, control: false)
        var into = GhostGATTFragments()
        #expect(try into.receive(values[0], now: .zero) == nil)
        // Ten seconds later the first piece is gone: the rest alone never completes.
        for value in values.dropFirst() { #expect(try into.receive(value, now: Instant(milliseconds: 10_000)) == nil) }
        #expect(throws: GhostGATTError.badHeader) { try into.receive([0x47, 0x44, 0, 0, 0, 1, 0, 2, 0, 2, 0], now: .zero) }
        #expect(throws: GhostGATTError.badHeader) { try into.receive([0x47, 0x45] + Array(values[0].dropFirst(2)), now: .zero) }
        var mixed = values[1]
        mixed[10] = 1
        #expect(throws: GhostGATTError.inconsistent(frameID: 1)) { try into.receive(mixed, now: Instant(milliseconds: 10_000)) }
    }
}
