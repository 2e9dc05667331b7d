import BluetoothCore
import GhostDrop
import JSON
import GhostDropFixture
import Testing

/// The receiver against the simulated phone's recorded sender: every frame
/// it writes must be the bytes the sender expects, and the file must come
/// out whole, across a link loss in the middle.
@Suite struct ReceiverFixtureTests {
    @Test func completesTheRecordedTransferAcrossALinkLoss() throws {
        let fixture = try TransferFixture.load()
        #expect(fixture.sessions.count == 2)
        let shell = Shell()
        var resume: GhostResumeState? = nil
        var now = Instant(milliseconds: 1_000)
        for session in fixture.sessions {
            // What the shell kept: the resume state as a file, and the bytes written.
            let restored = try resume.map { state throws(JSONError) in try GhostResumeState(decoding: state.encoded) }
            let receiver = GhostReceiver(random: queuedRandom(session.receiverRandom), resume: restored)
            if restored != nil { receiver.restoreWrittenBytes(shell.file) }
            shell.sent = []
            var expectedIndex = 0
            for step in session.steps {
                now = now.adding(milliseconds: 20)
                switch step {
                case .sender(let bytes):
                    // Cut each write in two, as SDUs may come.
                    receiver.receive(Array(bytes.prefix(7)), now: now)
                    receiver.receive(Array(bytes.dropFirst(7)), now: now)
                case .receiver(let bytes):
                    shell.drain(receiver)
                    try #require(expectedIndex < shell.sent.count, "no frame where the sender expects one")
                    #expect(shell.sent[expectedIndex] == bytes, "frame \(expectedIndex): \(String(decoding: shell.sent[expectedIndex], as: UTF8.self))")
                    expectedIndex += 1
                case .confirm:
                    shell.drain(receiver)
                    #expect(shell.events.contains(.showCode(session.sas)))
                    #expect(receiver.code == session.sas)
                    receiver.confirm(now: now)
                case .disconnect:
                    receiver.handleDisconnect()
                }
            }
            shell.drain(receiver)
            #expect(expectedIndex == shell.sent.count, "frames the sender did not expect")
            resume = receiver.resumeState
        }
        #expect(shell.file == fixture.file)
        let ends = shell.events.compactMap { event -> GhostEnd? in if case .ended(let end) = event { return end } else { return nil } }
        #expect(ends == [GhostEnd(byPeer: false, reason: "Link lost", resumable: true)])
        let completed = shell.events.compactMap { event -> GhostFileMetadata? in if case .completed(let m) = event { return m } else { return nil } }
        #expect(completed.count == 1)
        #expect(completed.first?.sha256 == fixture.sha256)
        #expect(completed.first?.filename == "headunit.conf")
        #expect(resume == nil)
        let starts = shell.events.compactMap { event -> Int64? in if case .incoming(_, let s) = event { return s } else { return nil } }
        #expect(starts == [0, 540])
    }

    /// The first session only, with one byte of chunk 1's ciphertext flipped.
    @Test func aTamperedChunkEndsTheSessionWithAReason() throws {
        let fixture = try TransferFixture.load()
        let session = fixture.sessions[0]
        let receiver = GhostReceiver(random: queuedRandom(session.receiverRandom))
        let shell = Shell()
        var dataFrames = 0
        for step in session.steps {
            switch step {
            case .sender(var bytes):
                if bytes[5] == GhostFrameKind.data.rawValue {
                    dataFrames += 1
                    if dataFrames == 2 {
                        // Base64 of the payload sits before the closing `"}}`: change one character.
                        let at = bytes.count - 10
                        bytes[at] = bytes[at] == 0x41 ? 0x42 : 0x41
                    }
                }
                receiver.receive(bytes, now: .zero)
            case .confirm: receiver.confirm(now: .zero)
            default: break
            }
        }
        shell.drain(receiver)
        #expect(shell.file == Array(fixture.file.prefix(180)))
        #expect(shell.events.last == .ended(GhostEnd(byPeer: false, reason: "Chunk 1 failed authentication", resumable: true)))
        #expect(receiver.resumeState?.nextSequence == 1)
        // The cancel goes sealed, as the first control frame of ours.
        #expect(shell.sent.last?[5] == GhostFrameKind.encrypted.rawValue)
        #expect(receiver.isFinished)
    }

    @Test func rejectingTheCodeSendsVerifyAckFalse() throws {
        let session = try TransferFixture.load().sessions[0]
        let receiver = GhostReceiver(random: queuedRandom(session.receiverRandom))
        guard case .sender(let hello) = session.steps[0] else { Issue.record("no hello"); return }
        receiver.receive(hello, now: .zero)
        receiver.reject(now: .zero)
        let shell = Shell()
        shell.drain(receiver)
        #expect(shell.sent.count == 2)
        #expect(try GhostFrameCodec.decode(shell.sent[1]) == .verifyAck(accepted: false))
        #expect(shell.events == [.showCode(session.sas), .ended(GhostEnd(byPeer: false, reason: "Codes did not match", resumable: false))])
    }

    @Test func anUnconfirmedCodeTimesOut() throws {
        let session = try TransferFixture.load().sessions[0]
        let receiver = GhostReceiver(random: queuedRandom(session.receiverRandom))
        guard case .sender(let hello) = session.steps[0] else { Issue.record("no hello"); return }
        receiver.receive(hello, now: .zero)
        #expect(receiver.nextDeadline == Instant(milliseconds: 120_000))
        receiver.handleTimeout(now: Instant(milliseconds: 119_999))
        #expect(!receiver.isFinished)
        receiver.handleTimeout(now: Instant(milliseconds: 120_000))
        let shell = Shell()
        shell.drain(receiver)
        #expect(shell.events.last == .ended(GhostEnd(byPeer: false, reason: "The code was not confirmed in time", resumable: false)))
        #expect(try shell.sent.map { bytes throws(GhostFrameError) in try GhostFrameCodec.decode(bytes).kind } == [.helloAck, .verifyAck, .cancel])
    }

    /// A resume state whose written bytes fall short of what it claims: the
    /// transfer starts over at 0 instead of hashing a file with a hole.
    @Test func aResumeStateWithoutItsBytesStartsOver() throws {
        let fixture = try TransferFixture.load()
        let session = fixture.sessions[1]
        let receiver = GhostReceiver(random: queuedRandom(session.receiverRandom),
                                     resume: GhostResumeState(metadata: GhostFileMetadata(
                                        transferID: GhostUUID("00000000-0000-4000-8000-000000000000")!, filename: "x", size: 10,
                                        mimeType: "a", sha256: [UInt8](repeating: 0, count: 32), chunkSize: 5), nextSequence: 1))
        receiver.restoreWrittenBytes([1, 2])
        let shell = Shell()
        for step in session.steps {
            switch step {
            case .sender(let bytes): receiver.receive(bytes, now: .zero)
            case .confirm: receiver.confirm(now: .zero)
            default: break
            }
        }
        shell.drain(receiver)
        // The recording resumes at chunk 3: held behind the gap, nothing
        // written, and `complete` refused.
        #expect(shell.events.contains { if case .incoming(_, 0) = $0 { return true } else { return false } })
        #expect(!shell.sent.contains { $0[5] == GhostFrameKind.resume.rawValue })
        #expect(shell.events.last == .ended(GhostEnd(byPeer: false, reason: "complete after 0 of 6 chunks", resumable: true)))
        #expect(shell.file.isEmpty)
    }
}
