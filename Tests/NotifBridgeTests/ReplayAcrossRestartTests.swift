import XCTest
import BluetoothCore
import JSON
@testable import NotifBridge

/// What the key file keeps so that replays, rollbacks and graces hold
/// across a restart (docs/NOTIFBRIDGE.md, "Persistence"). Each restart is a
/// new receiver on a new monotonic clock, loading the last file written.
final class ReplayAcrossRestartTests: XCTestCase {
    private func restart(_ h: Harness, at milliseconds: Int64 = 7_000) -> Harness {
        let next = Harness(subscribe: false)
        next.now = Instant(milliseconds: milliseconds)
        next.receiver.loadKeys(h.stored.last!, now: next.now)
        next.receiver.subscribed(now: next.now)
        next.drain()
        next.clear()
        return next
    }

    private func shown(_ h: Harness) -> [String] {
        h.events.compactMap { if case .add(let n) = $0 { return n.title } else if case .update(let n) = $0 { return n.title } else { return nil } }
    }

    func testAnEnvelopeReplayedAfterARestartIsAcknowledgedAndNotShown() {
        let h = Harness()
        h.key(1)
        let envelope = h.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10, title: "In 500 m"), exchange: 1, receipt: 51)
        h.writeEnvelope(envelope)
        XCTAssertEqual(shown(h), ["In 500 m"])

        let after = restart(h)
        after.writeEnvelope(envelope)
        XCTAssertEqual(after.events, [], "the same bytes again: taken before the restart")
        XCTAssertEqual(after.frameTexts, [Harness.receipt(51)], "acknowledged, so the phone stops sending it")
        // The same event sealed again (other bytes), and an older one: the ordering outlived the restart too.
        after.writeEnvelope(after.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10, title: "In 500 m"), exchange: 1, receipt: 52, nonce: 8))
        after.writeEnvelope(after.phone.envelope(TestPhone.event("update", id: 2, sentAt: 9, title: "In 900 m"), exchange: 1, receipt: 53))
        XCTAssertEqual(after.events, [])
        after.writeEnvelope(after.phone.envelope(TestPhone.event("update", id: 3, sentAt: 11, title: "In 300 m"), exchange: 1, receipt: 54))
        XCTAssertEqual(shown(after), ["In 300 m"], "a newer event still counts")
    }

    func testTheReceiptOfAnEnvelopeWaitsForItsDeliveryToBeStored() {
        let h = Harness()
        h.key(1)
        h.clear()
        h.storeSucceeds = false
        h.writeEnvelope(h.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10), exchange: 1, receipt: 51))
        XCTAssertEqual(shown(h), ["Turn left"], "shown at once")
        XCTAssertEqual(h.frames, [], "but not receipted: the delivery is not on disk")
    }

    func testAnOldActivateAfterARestartDoesNotBringAnExpiredGenerationBack() {
        let h = Harness()
        h.key(1)
        h.key(2)
        h.advance(seconds: 301)
        XCTAssertEqual(h.receiver.keyRing.generations.map { $0.exporterSecret }, [h.phone.exporterSecret(2)])
        XCTAssertEqual(h.receiver.keyRing.prepared, [], "activated seeds are not kept")

        for (label, h) in [("running", h), ("restarted", restart(h))] {
            h.clear()
            h.writeKeys(h.phone.prepare(exchange: 1, receipt: 111))
            h.writeKeys(h.phone.activate(exchange: 1, receipt: 211))
            XCTAssertEqual(h.receiver.keyRing.newest?.exporterSecret, h.phone.exporterSecret(2), label)
            XCTAssertEqual(h.receiver.keyRing.generations.count, 1, label)
            XCTAssertEqual(h.receiver.keyRing.prepared, [], "\(label): the old prepare is not kept")
            XCTAssertEqual(h.frameTexts, [Harness.receipt(111), Harness.receipt(211)], "\(label): acknowledged, nothing installed")
            h.writeEnvelope(h.phone.envelope(TestPhone.event("add", id: 9, sentAt: 90), exchange: 1, receipt: 59))
            XCTAssertEqual(h.events, [], "\(label): the expired key opens nothing")
        }
    }

    func testAnOldActivateOfAReplacedGenerationDoesNotMakeItTheNewest() {
        let h = Harness()
        h.key(1)
        h.key(2)
        let after = restart(h)
        after.writeKeys(after.phone.activate(exchange: 1, receipt: 211))
        XCTAssertEqual(after.receiver.keyRing.newest?.exporterSecret, after.phone.exporterSecret(2))
        XCTAssertEqual(after.receiver.keyRing.generations.count, 2)
    }

    func testAnOldSinglePacketKeyDoesNotBringAnExpiredGenerationBack() {
        let h = Harness()
        h.writeKeys(h.phone.legacy(exchange: 5, receipt: 305))
        h.writeKeys(h.phone.legacy(exchange: 6, receipt: 306))
        h.advance(seconds: 301)
        let after = restart(h)
        after.writeKeys(after.phone.legacy(exchange: 5, receipt: 315))
        XCTAssertEqual(after.receiver.keyRing.generations.map { $0.exporterSecret }, [after.phone.exporterSecret(6)])
        XCTAssertEqual(after.frameTexts, [Harness.receipt(315)])
        // The newest one again is a repeat, as before the restart.
        after.writeKeys(after.phone.legacy(exchange: 6, receipt: 316))
        XCTAssertEqual(after.receiver.keyRing.generations.count, 1)
    }

    /// Replaced 90 s before the last write, restarted: 300 − 90 − 30 (the
    /// interval between writes, counted as used) = 180 s left, not 300.
    func testTheGraceOfAReplacedGenerationCountsFromItsReplacementAcrossRestarts() {
        let h = Harness()
        h.key(1)
        h.key(2)
        h.advance(seconds: 100)
        let writes = h.stored.count
        XCTAssertGreaterThanOrEqual(writes, 4 + 3, "written every 30 s while the grace runs")

        let after = restart(h)
        XCTAssertEqual(after.receiver.keyRing.usable(at: after.now.adding(seconds: 179)).count, 2)
        XCTAssertEqual(after.receiver.keyRing.usable(at: after.now.adding(seconds: 180)).count, 1)
        after.advance(seconds: 179)
        after.writeEnvelope(after.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10), exchange: 1, receipt: 51))
        XCTAssertEqual(shown(after), ["Turn left"])

        // Restarts in a row never give more: each load counts 30 s more as used.
        var next = restart(h)
        for _ in 0..<6 { next = restart(next, at: next.now.milliseconds + 1) }
        XCTAssertEqual(next.receiver.keyRing.generations.count, 1, "the grace ran out across seven short restarts")
    }
}
