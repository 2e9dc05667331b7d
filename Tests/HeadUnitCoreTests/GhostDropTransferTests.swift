import BluetoothCore
import Console
import GhostDrop
import GhostDropFixture
@testable import HeadUnitCore
import L2CAP
import ScriptedPeers
import ScriptedPairing
import Testing

/// The simulated phone's recorded GhostDrop transfer through the whole
/// core: SDUs on the channel to a receiver, its frames back on the
/// channel, its events in the event log, the code answered on the console.
@Suite struct GhostDropTransferTests {
    /// The phone's CID, and ours (the first the core allocates).
    static let phoneCID: UInt16 = 0x0041
    static let ourCID: UInt16 = 0x0040

    /// A paired phone with GhostDrop's channel open (MTU 2048, MPS 247, all
    /// the credits it may give) and the core drawing the recording's randomness.
    func openChannel(_ session: TransferFixture.Session, stored: StoredState = accessoryState) throws -> CoreRig {
        let (rig, phone) = try settingsRig(stored: stored)
        try pairFromSettings(rig, phone)
        try reopen(rig, session)
        return rig
    }

    /// The phone opens the channel (again) on the same link.
    func reopen(_ rig: CoreRig, _ session: TransferFixture.Session) throws {
        let spsm = try #require(rig.core.ghostDrop.spsm)
        rig.core.ghostDrop.random = queuedRandom(session.receiverRandom)
        rig.phoneSendsL2CAP(channel: 0x0005, [0x14, 0x01, 10, 0, UInt8(spsm.rawValue & 0xFF), UInt8(spsm.rawValue >> 8),
                                               UInt8(Self.phoneCID), 0x00, 0x00, 0x08, 0xF7, 0x00, 0xFF, 0xFF])
        try #require(rig.core.ghostDrop.open.count == 1)
    }

    /// One SDU in K-frames of our MPS (247): the first starts with the SDU's length.
    func send(_ sdu: [UInt8], _ rig: CoreRig) {
        let payload = [UInt8(sdu.count & 0xFF), UInt8(sdu.count >> 8)] + sdu
        for start in stride(from: 0, to: payload.count, by: 247) {
            rig.phoneSendsL2CAP(channel: Self.ourCID, Array(payload[start..<min(start + 247, payload.count)]))
        }
    }

    /// Every SDU the core sent the phone, joined: GhostDrop's frames as a stream.
    func stream(_ rig: CoreRig, from start: Int = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        var expected = 0
        for frame in rig.first.otherFrames.dropFirst(start) where frame.channel == Self.phoneCID {
            if expected == 0 {
                expected = Int(frame.payload[0]) | Int(frame.payload[1]) << 8
                bytes += frame.payload.dropFirst(2)
                expected -= frame.payload.count - 2
            } else {
                bytes += frame.payload
                expected -= frame.payload.count
            }
        }
        return bytes
    }

    /// The frames the core sent the phone, decoded.
    func sentFrames(_ rig: CoreRig) throws -> [GhostFrame] {
        var frames = GhostFrameStream()
        frames.append(stream(rig))
        var sent: [GhostFrame] = []
        while let frame = try frames.next() { sent.append(frame) }
        return sent
    }

    /// One recorded session on the open channel: what the core sent back
    /// and what the recorded sender expected. `answer` is the driver's
    /// "Codes match" where the recording has it (the console's `confirm`).
    func run(_ session: TransferFixture.Session, _ rig: CoreRig,
             answer: (CoreRig) -> Void = { $0.core.command(.confirm, now: $0.now) }) -> (sent: [UInt8], expected: [UInt8]) {
        let start = rig.first.otherFrames.count
        var expected: [UInt8] = []
        for step in session.steps {
            switch step {
            case .sender(let bytes): send(bytes, rig)
            case .receiver(let bytes): expected += bytes
            case .confirm:
                answer(rig)
                rig.settle()
            case .disconnect:
                rig.phoneSendsL2CAP(channel: 0x0005, [0x06, 0x02, 4, 0, UInt8(Self.ourCID), 0, UInt8(Self.phoneCID), 0])
            }
        }
        return (stream(rig, from: start), expected)
    }

    /// The file and resume state as the shell keeps them from the core's writes.
    final class Kept {
        var incoming: [UInt8]? = nil
        var resume: [UInt8]? = nil
        var received: [String: [UInt8]] = [:]

        func apply(_ writes: [StateWrite]) {
            for case .ghostDrop(let op) in writes {
                switch op {
                case .begin(let length): incoming = Array((incoming ?? []).prefix(Int(length)))
                case .append(let bytes): incoming = (incoming ?? []) + bytes
                case .resumeState(let bytes): resume = bytes
                case .completed(let name):
                    received[name] = incoming
                    incoming = nil
                    resume = nil
                case .discard:
                    incoming = nil
                    resume = nil
                }
            }
        }
    }

    /// What the shell gives the core for the bytes a resume state covers.
    static func digest(_ bytes: [UInt8]) -> GhostDigest {
        let digest = GhostDigest()
        digest.update(bytes)
        return digest
    }

    func reports(_ rig: CoreRig) -> [GhostDropReport] {
        rig.events.compactMap { if case .ghostDrop(let r) = $0 { return r } else { return nil } }
    }

    @Test func theRecordedTransferRunsThroughTheCoreUntilTheChannelCloses() throws {
        let fixture = try TransferFixture.load()
        let session = fixture.sessions[0]
        let rig = try openChannel(session)
        var expected: [UInt8] = []
        for step in session.steps {
            switch step {
            case .sender(let bytes):
                send(bytes, rig)
            case .receiver(let bytes):
                expected += bytes
            case .confirm:
                #expect(reports(rig).last == .code(session.sas))
                #expect(rig.core.ghostDrop.codeShown == session.sas)
                #expect(rig.screen().transferCode == session.sas && rig.screen().kind == .pairing)
                _ = rig.takeConsoleLines()
                rig.core.command(ConsoleCommand(line: "confirm"), now: rig.now)
                rig.settle()
                #expect(rig.takeConsoleLines() == ["codes match: sent"])
                #expect(rig.core.ghostDrop.codeShown == nil && rig.screen().transferCode == nil)
            case .disconnect:
                // L2CAP Disconnection Request: our CID, the phone's.
                rig.phoneSendsL2CAP(channel: 0x0005, [0x06, 0x02, 4, 0, UInt8(Self.ourCID), 0, UInt8(Self.phoneCID), 0])
            }
        }
        // Every frame the core sent is the one the recorded sender expected, in order.
        #expect(stream(rig) == expected)
        #expect(rig.core.ghostDrop.open.isEmpty)
        let got = reports(rig)
        #expect(got.first == .code(session.sas))
        #expect(got.contains(.verified))
        #expect(got.contains(.incoming(filename: "headunit.conf", size: Int64(fixture.file.count), mimeType: "text/plain", startOffset: 0)))
        #expect(got.contains { if case .progress(let bytes, let total, _, _) = $0 { return bytes > 0 && total == Int64(fixture.file.count) } else { return false } })
        #expect(got.last == .ended(reason: "Link lost", byPeer: false, resumable: true))
    }

    /// The recorded sender's hello on an open channel: its code waits for the driver.
    func codeWaiting() throws -> (TransferFixture.Session, CoreRig) {
        let session = try TransferFixture.load().sessions[0]
        let rig = try openChannel(session)
        guard case .sender(let hello) = session.steps[0] else { throw RecordingHasNoHello() }
        send(hello, rig)
        #expect(rig.core.ghostDrop.codeShown == session.sas)
        return (session, rig)
    }

    struct RecordingHasNoHello: Error {}

    @Test func cancelOnTheConsoleAnswersTheCodeWithNo() throws {
        let (session, rig) = try codeWaiting()
        _ = rig.takeConsoleLines()
        rig.core.command(ConsoleCommand(line: "cancel"), now: rig.now)
        rig.settle()
        #expect(rig.takeConsoleLines() == ["codes do not match: sent"])
        #expect(reports(rig) == [.code(session.sas), .ended(reason: "Codes did not match", byPeer: false, resumable: false)])
        // helloAck, then verifyAck false, on the channel.
        let sent = try sentFrames(rig)
        #expect(sent.map(\.kind) == [.helloAck, .verifyAck])
        #expect(sent.last == .verifyAck(accepted: false))
        // Nothing waits for an answer any more.
        rig.core.command(ConsoleCommand(line: "confirm"), now: rig.now)
        rig.settle()
        #expect(rig.takeConsoleLines() == ["no GhostDrop code waits for an answer"])
    }

    @Test func aLinkLossResumesOnTheNextChannelAndTheFileArrivesWhole() throws {
        let fixture = try TransferFixture.load()
        let rig = try openChannel(fixture.sessions[0])
        let first = run(fixture.sessions[0], rig)
        #expect(first.sent == first.expected)
        try reopen(rig, fixture.sessions[1])
        let second = run(fixture.sessions[1], rig)
        #expect(second.sent == second.expected)
        let kept = Kept()
        kept.apply(rig.writes)
        #expect(kept.received == ["headunit.conf": fixture.file])
        #expect(kept.incoming == nil && kept.resume == nil)
        #expect(reports(rig).last == .completed(filename: "headunit.conf", size: Int64(fixture.file.count)))
        #expect(reports(rig).contains(.incoming(filename: "headunit.conf", size: Int64(fixture.file.count), mimeType: "text/plain",
                                                startOffset: 540)))
    }

    @Test func aRestartResumesFromTheKeptFiles() throws {
        let fixture = try TransferFixture.load()
        let before = try openChannel(fixture.sessions[0])
        _ = run(fixture.sessions[0], before)
        let kept = Kept()
        kept.apply(before.writes)
        let resume = try GhostResumeState(decoding: try #require(kept.resume))
        #expect(resume.nextSequence == 3)
        #expect(kept.incoming == Array(fixture.file.prefix(540)))

        // The head unit starts again with what the shell kept.
        var stored = accessoryState
        stored.ghostDropResume = kept.resume
        stored.ghostDropWritten = Self.digest(kept.incoming ?? [])
        let after = try openChannel(fixture.sessions[1], stored: stored)
        let second = run(fixture.sessions[1], after)
        #expect(second.sent == second.expected)
        kept.apply(after.writes)
        #expect(kept.received == ["headunit.conf": fixture.file])
    }

    @Test func theSendersFilenameBecomesOneHarmlessName() {
        #expect(GhostDropFileOp.safeName("headunit.conf") == "headunit.conf")
        #expect(GhostDropFileOp.safeName("../../etc/passwd") == "passwd")
        #expect(GhostDropFileOp.safeName(".hidden file") == "_hidden_file")
        #expect(GhostDropFileOp.safeName("/") == "file")
        #expect(GhostDropFileOp.safeName(String(repeating: "a", count: 100)).utf8.count == 64)
    }

    /// The core's GhostDrop sessions with a transfer of 10 bytes kept to
    /// resume after its first chunk (5 bytes written).
    static func keepingATransfer() -> (GhostDropChannel, GhostResumeState) {
        let metadata = GhostFileMetadata(transferID: GhostUUID("00000000-0000-4000-8000-000000000001")!, filename: "a.conf",
                                         size: 10, mimeType: "text/plain", sha256: [UInt8](repeating: 1, count: 32), chunkSize: 5)
        let kept = GhostResumeState(metadata: metadata, nextSequence: 1)
        return (GhostDropChannel(random: .system, partial: GhostDropPartial(resume: kept.encoded, written: Self.digest([1, 2, 3, 4, 5]))), kept)
    }

    /// A refused sender's session ended with the reason, and nothing of the
    /// transfer kept (`keepingATransfer`) moved.
    static func expectRefused(_ ghostDrop: inout GhostDropChannel, keeping kept: GhostResumeState) {
        let report = ghostDrop.reports.popFirst()
        #expect(report == .ended(reason: "Only the head unit's paired phone may send files", byPeer: false, resumable: false))
        let op = ghostDrop.fileOps.popFirst()
        #expect(op == nil)
        #expect(ghostDrop.partial.resume == kept && ghostDrop.partial.written.copy().finish() == Self.digest([1, 2, 3, 4, 5]).finish())
    }

    /// A sender the head unit does not take files from is told why at once,
    /// and the transfer kept to resume stays as it was.
    @Test func aRefusedSenderIsCancelledWithoutTouchingTheKeptTransfer() throws {
        var (ghostDrop, kept) = Self.keepingATransfer()
        #expect(ghostDrop.partial.resume == kept)
        let channel = ChannelEndpoint(handle: ConnectionHandle(1), local: ChannelIdentifier(0x0040), spsm: SPSM(0x0080))
        ghostDrop.opened(channel, peerMTU: 2048, refusal: "Only the head unit's paired phone may send files", now: .zero)
        Self.expectRefused(&ghostDrop, keeping: kept)
        let popped = ghostDrop.outgoing.popFirst()
        let sdu = try #require(popped)
        var frames = GhostFrameStream()
        frames.append(sdu.bytes)
        #expect(try frames.next() == .cancel(reason: "Only the head unit's paired phone may send files"))
    }

    /// The resume state is written for the first chunk, then once every
    /// 64 KiB it covers, and when the session ends.
    @Test func theResumeStateIsWrittenEvery64KiBAndAtTheEnd() throws {
        let metadata = GhostFileMetadata(transferID: GhostUUID("00000000-0000-4000-8000-000000000002")!, filename: "b.bin",
                                         size: 1 << 20, mimeType: "application/octet-stream",
                                         sha256: [UInt8](repeating: 2, count: 32), chunkSize: 1024)
        var partial = GhostDropPartial(resume: nil, written: nil)
        var ops = FIFO<GhostDropFileOp>()
        var written: [UInt64] = []
        for next in UInt64(1)...100 {
            partial.keep(GhostResumeState(metadata: metadata, nextSequence: next), final: next == 100, &ops)
            while let op = ops.popFirst() {
                if case .resumeState(let bytes) = op { written.append(try GhostResumeState(decoding: bytes).nextSequence) }
            }
        }
        #expect(written == [1, 65, 100])
    }
}
