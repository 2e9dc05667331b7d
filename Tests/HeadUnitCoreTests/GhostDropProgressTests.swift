import BluetoothCore
import Console
import GhostDrop
import GhostDropFixture
@testable import HeadUnitCore
import ScreenValues
import ScriptedPeers
import Testing

/// A transfer's figures in virtual time: the recorded transfer's chunks
/// reach the core at a rate the test sets, and the `ghostdrop` progress
/// reports and the screen's band say that rate and the time left; the
/// outcome stays on the band for a few seconds; and a head unit stopped
/// mid-transfer (SIGTERM) keeps the resume state at its last confirmed chunk.
@Suite struct GhostDropProgressTests {
    let transfer = GhostDropTransferTests()

    /// Whether `sdu` is a GhostDrop data chunk (kind 0x06 after `GHST` and the version).
    static func isChunk(_ sdu: [UInt8]) -> Bool { sdu.count > 5 && sdu[5] == 0x06 }

    func progress(_ rig: CoreRig) -> [(bytes: Int64, total: Int64, rate: Int64, eta: Int64?)] {
        transfer.reports(rig).compactMap {
            if case let .progress(bytes, total, rate, eta) = $0 { return (bytes, total, rate, eta) } else { return nil }
        }
    }

    /// One recorded session on the open channel, each chunk arriving
    /// `gap(bytes)` milliseconds after the one before it (`bytes`: its
    /// plaintext, 180 but the file's last); `first`: the session's first
    /// chunk's sequence; `watch` sees the rig after each chunk.
    func run(_ session: TransferFixture.Session, _ rig: CoreRig, fileSize: Int, first: Int, gap: (Int) -> Int64,
             watch: (CoreRig) -> Void = { _ in }) {
        var sequence = first
        for step in session.steps {
            switch step {
            case .sender(let bytes):
                let chunk = Self.isChunk(bytes)
                if chunk {
                    if sequence > first { rig.advance(milliseconds: gap(min(180, fileSize - 180 * sequence))) }
                    sequence += 1
                }
                transfer.send(bytes, rig)
                if chunk { watch(rig) }
            case .receiver: break
            case .confirm:
                rig.core.command(.confirm, now: rig.now)
                rig.settle()
            case .disconnect:
                rig.phoneSendsL2CAP(channel: 0x0005, [0x06, 0x02, 4, 0, UInt8(GhostDropTransferTests.ourCID), 0,
                                                      UInt8(GhostDropTransferTests.phoneCID), 0])
            }
        }
    }

    /// The recorded transfer's first session (chunks 0 to 2, then the
    /// phone closes the channel) at 500 B/s, and the channel opened again
    /// for the second (chunks 3 to 5 of the 1000 bytes).
    func cutAndReopened(_ fixture: TransferFixture) throws -> CoreRig {
        let rig = try transfer.openChannel(fixture.sessions[0])
        run(fixture.sessions[0], rig, fileSize: fixture.file.count, first: 0, gap: { Int64($0) * 2 })
        try transfer.reopen(rig, fixture.sessions[1])
        return rig
    }

    /// A steady link: every chunk 2 ms a byte after the one before (500 B/s).
    /// The session's first report has no rate yet (its chunk came before
    /// any time was measured); every later one says 500 B/s and the time
    /// left at it, rounded up; the band shows the same.
    @Test func aSteadyLinkGivesItsRateAndTheTimeLeft() throws {
        let fixture = try TransferFixture.load()
        #expect(fixture.file.count == 1000)
        let rig = try cutAndReopened(fixture)
        let before = progress(rig).count
        var bands: [TransferStatus] = []
        run(fixture.sessions[1], rig, fileSize: 1000, first: 3, gap: { Int64($0) * 2 }) { rig in
            if let band = rig.screen().transfer { bands.append(band.status) }
        }
        let second = Array(progress(rig).dropFirst(before))
        #expect(second.map(\.bytes) == [720, 900, 1000])
        #expect(second.map(\.rate) == [0, 500, 500])
        #expect(second.map(\.eta) == [nil, 1, 0])
        #expect(bands == [.receiving(bytes: 720, total: 1000, bytesPerSecond: 0, etaSeconds: nil),
                          .receiving(bytes: 900, total: 1000, bytesPerSecond: 500, etaSeconds: 1),
                          .receiving(bytes: 1000, total: 1000, bytesPerSecond: 500, etaSeconds: 0)])
        // Then the file was whole and checked.
        #expect(rig.screen().transfer == TransferBand(filename: "headunit.conf", status: .received))
    }

    /// The link slows from 500 to 100 B/s for the last chunk: the rate
    /// falls towards it, smoothed (`GhostRate`): the 1000 ms at 100 B/s
    /// weigh 1000 / (1000 + 2000) against the 500 B/s before.
    @Test func aSlowerLinkLowersTheRateSmoothly() throws {
        let fixture = try TransferFixture.load()
        let rig = try cutAndReopened(fixture)
        let before = progress(rig).count
        run(fixture.sessions[1], rig, fileSize: 1000, first: 3, gap: { $0 == 180 ? 360 : 1000 })
        let rates = progress(rig).dropFirst(before).map(\.rate)
        #expect(rates.count == 3)
        guard rates.count == 3 else { return }
        #expect(rates[1] == 500)
        #expect(rates[2] > 100 && rates[2] < 500, "\(rates)")
        #expect(rates[2] == (500 * 2000 + 100 * 1000) / 3000, "\(rates)")
        #expect(progress(rig).last?.eta == 0)
    }

    /// After the file: "received" until the shell says what became of it,
    /// then that outcome for six seconds, and the screen is told when it goes.
    @Test func theOutcomeStaysBrieflyAndGoes() throws {
        let fixture = try TransferFixture.load()
        let rig = try cutAndReopened(fixture)
        run(fixture.sessions[1], rig, fileSize: 1000, first: 3, gap: { _ in 300 })
        #expect(rig.screen().transfer?.status == .received)
        rig.core.transferHandedOn(.installing, now: rig.now)
        #expect(rig.screen().transfer == TransferBand(filename: "headunit.conf", status: .installing))
        // A second word from the shell does not restart or replace it.
        rig.core.transferHandedOn(.refused("late"), now: rig.now)
        #expect(rig.screen().transfer?.status == .installing)
        // The screen wakes up for it to go (no later than the clock's minute).
        #expect(rig.core.millisecondsToNextVisibleChange(now: rig.now, systemMillisecondsToNextMinute: 60_000) <= 6000)
        rig.advance(milliseconds: 5999)
        #expect(rig.screen().transfer?.status == .installing)
        #expect(rig.core.millisecondsToNextVisibleChange(now: rig.now, systemMillisecondsToNextMinute: 60_000) == 1)
        rig.advance(milliseconds: 1)
        #expect(rig.screen().transfer == nil)
    }

    /// A transfer cut by the link shows why, for six seconds.
    @Test func aCutTransferShowsWhy() throws {
        let fixture = try TransferFixture.load()
        let rig = try transfer.openChannel(fixture.sessions[0])
        var shown: [TransferStatus] = []
        run(fixture.sessions[0], rig, fileSize: 1000, first: 0, gap: { _ in 300 }) { rig in
            if let band = rig.screen().transfer { shown.append(band.status) }
        }
        #expect(shown.count == 3)
        #expect(shown.allSatisfy { if case .receiving = $0 { return true } else { return false } })
        #expect(rig.screen().transfer == TransferBand(filename: "headunit.conf", status: .cancelled("Link lost")))
        rig.advance(milliseconds: 6000)
        #expect(rig.screen().transfer == nil)
    }

    /// SIGTERM mid-transfer: the shell's `disconnectAll` has the resume
    /// state written at once at the last confirmed chunk (3 of the 6),
    /// though the one written before was the session's first (the next
    /// would have come at 64 KiB) and
    /// the link's end never comes back before the process exits; a head
    /// unit started again from the kept files resumes at byte 540.
    @Test func aStopMidTransferKeepsTheResumeStateAtTheLastConfirmedChunk() throws {
        let fixture = try TransferFixture.load()
        var session = fixture.sessions[0]
        // Everything but the phone's disconnection: the channel stays open.
        if case .disconnect? = session.steps.last { session.steps.removeLast() }
        let rig = try transfer.openChannel(session)
        run(session, rig, fileSize: fixture.file.count, first: 0, gap: { _ in 300 })
        let kept = GhostDropTransferTests.Kept()
        kept.apply(rig.writes)
        #expect(try GhostResumeState(decoding: try #require(kept.resume)).nextSequence < 3, "written before the stop")
        #expect(kept.incoming == Array(fixture.file.prefix(540)))

        // What the shell writes in the same turn, before the controller
        // has even seen the disconnection (the process may be gone before
        // the links' ends come back).
        #expect(rig.core.disconnectAll(now: rig.now))
        var atOnce: [StateWrite] = []
        while rig.core.hasStateWrites { atOnce.append(rig.core.takeStateWrite()) }
        #expect(rig.first.isLinkUp)
        kept.apply(atOnce)
        let resume = try GhostResumeState(decoding: try #require(kept.resume))
        #expect(resume.nextSequence == 3)

        var stored = accessoryState
        stored.ghostDropResume = kept.resume
        stored.ghostDropWritten = GhostDropTransferTests.digest(kept.incoming ?? [])
        let after = try transfer.openChannel(fixture.sessions[1], stored: stored)
        let second = transfer.run(fixture.sessions[1], after)
        #expect(second.sent == second.expected)
        #expect(transfer.reports(after).contains(.incoming(filename: "headunit.conf", size: Int64(fixture.file.count), mimeType: "text/plain",
                                                           startOffset: 540)))
        kept.apply(after.writes)
        #expect(kept.received == ["headunit.conf": fixture.file])
    }
}
