import BluetoothCore
import HCI
import HeadUnitCore
import NavigationNotifier
import ScriptedPeers
@testable import ScriptedPairing
import Testing

/// Every deadline of the core runs on the time it is given: nothing here
/// sleeps, and each case passes minutes of virtual time in microseconds.
@Suite struct TimerTests {
    /// `opcode` goes out once `milliseconds` have passed since the timer
    /// started (during `start`, which takes 200 ms), and not 300 ms before.
    func expectSent(_ opcode: HCIOpcode, after milliseconds: Int64, by rig: CoreRig,
                    sourceLocation: SourceLocation = #_sourceLocation) {
        rig.advance(milliseconds: milliseconds - 300)
        #expect(!rig.commands.contains(opcode), sourceLocation: sourceLocation)
        rig.advance(milliseconds: 600)
        #expect(rig.commands.contains(opcode), sourceLocation: sourceLocation)
    }

    /// SMP: a phone that stops answering in the middle of pairing; after
    /// 30 s the procedure has timed out and the link is dropped.
    @Test func aSilentPhoneDuringPairingTimesOutAfter30Seconds() throws {
        let (rig, smp) = try pairingRig()
        rig.smp = silentAfterPublicKey(smp)
        rig.start()
        #expect(rig.core.passkeyShown != nil)
        expectSent(.disconnect, after: 30_000, by: rig)
        #expect(rig.errors.contains { $0.hasPrefix("pairing:") })
        #expect(rig.commands.contains(.disconnect))
        #expect(rig.core.passkeyShown == nil)
        // The pairing routine connects again.
        rig.advance(milliseconds: 2_000)
        #expect(rig.connectionAttempts == 2)
    }

    /// ATT: a request the phone never answers ends the link after 30 s.
    @Test func anUnansweredATTRequestDropsTheLinkAfter30Seconds() throws {
        let (rig, _) = try pairingRig()
        rig.phoneAnswersATT = false
        rig.start()
        #expect(rig.core.links.count == 1)
        expectSent(.disconnect, after: 30_000, by: rig)
        #expect(rig.core.links.isEmpty)
    }

    /// A phone that does not take the connection: the attempt is
    /// cancelled after the connect timeout and scanning goes on.
    @Test func aConnectionThatNeverComesUpIsCancelled() throws {
        let (rig, _) = try pairingRig()
        rig.phoneAdvertises = true
        rig.acceptsConnections = false
        rig.start()
        #expect(rig.commands.contains(.leCreateConnection))
        expectSent(.leCreateConnectionCancel, after: 5_000, by: rig)
        #expect(rig.core.links.isEmpty)
    }

    /// The screen's next change: the clock's next minute from the phone's time.
    @Test func theScreenWakesForThePhonesNextMinute() throws {
        let (rig, _) = try pairingRig()
        rig.start()
        #expect(rig.screen().clock == "8:15")
        // Read at 8:15:30 a moment ago: the minute changes in under 30 s,
        // counted on the phone's time, not the system's.
        let wait = rig.core.millisecondsToNextVisibleChange(now: rig.now, systemMillisecondsToNextMinute: 12_345)
        #expect((29_000...30_000).contains(wait))
        rig.advance(milliseconds: wait - 1)
        #expect(rig.screen().clock == "8:15")
        rig.advance(milliseconds: 1)
        #expect(rig.screen().clock == "8:16")
    }

    @Test func theNextDeadlineIsTheEarliestOfEveryLayer() throws {
        let (rig, smp) = try pairingRig()
        rig.smp = silentAfterPublicKey(smp)
        rig.start()
        // The SMP timer (30 s) is the one running.
        let deadline = try #require(rig.core.nextDeadline)
        #expect(deadline <= rig.now.adding(milliseconds: 30_000))
        #expect(deadline > rig.now)
    }
}
