import XCTest
import BluetoothCore
import JSON
@testable import NotifBridge
import HPKE

private let maps = NotificationIdentity(sourceIdentifier: "com.google.Maps", notificationIdentifier: "n1")

private func titles(_ events: [NotifBridgeEvent]) -> [String] {
    events.map { event in
        switch event {
        case .add(let n): return "add " + (n.title ?? "")
        case .update(let n): return "update " + (n.title ?? "")
        case .remove(let identity): return "remove " + identity.notificationIdentifier
        case .removeAll: return "removeAll"
        }
    }
}

final class ReceiverTests: XCTestCase {
    // MARK: readiness and acks

    func testReadinessIsResentUntilTheFirstChunk() {
        let h = Harness()
        XCTAssertEqual(h.frameTexts, ["NB-RECEIVER-READY-1"])
        h.advance(seconds: 9)
        XCTAssertEqual(h.frames.count, 1)
        h.advance(seconds: 1)
        XCTAssertEqual(h.frames.count, 2)
        h.advance(seconds: 100)
        XCTAssertEqual(h.frames.count, 7, "once on subscription and six times more")
        XCTAssertNil(h.receiver.nextDeadline)

        let stopped = Harness()
        stopped.receiver.written(.notifications, value: TestPhone.chunkID(1) + FrameToken.start, now: stopped.now)
        stopped.advance(seconds: 100)
        XCTAssertEqual(stopped.frames.count, 1, "a notification chunk stops the readiness messages")
    }

    func testNothingIsIndicatedBeforeSubscription() {
        let h = Harness(subscribe: false)
        h.receiver.written(.notifications, value: TestPhone.chunkID(1) + FrameToken.start, now: h.now)
        h.drain()
        XCTAssertEqual(h.indications, [])
    }

    func testEveryChunkIsAckedAfterItIsTakenAndOnlyThen() {
        let h = Harness()
        h.clear()
        let values = TestPhone.wrapped(Array("{}".utf8), firstChunk: 1)
        for (i, value) in values.enumerated() {
            h.receiver.written(.notifications, value: value, now: h.now)
            h.drain()
            XCTAssertEqual(h.acks.count, i + 1)
            XCTAssertEqual(h.acks.last, Array("NBA1".utf8) + Array(value[4..<20]))
        }
        // Without the wrapper (a writer that waits for no ack) nothing is acknowledged.
        h.receiver.written(.notifications, value: FrameToken.start, now: h.now)
        h.receiver.written(.notifications, value: Array("NBW1".utf8) + [1, 2, 3], now: h.now)
        h.drain()
        XCTAssertEqual(h.acks.count, values.count)
    }

    func testARepeatedChunkIsAckedAgainButNotTakenTwice() {
        let h = Harness()
        h.key(1)
        h.clear()
        let frame = h.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10), exchange: 1, receipt: 50)
        let values = TestPhone.wrapped(frame, firstChunk: 1)
        for value in values {
            h.receiver.written(.notifications, value: value, now: h.now)
            // The ack of the second chunk is lost: the phone writes it again.
            if value == values[1] { h.receiver.written(.notifications, value: value, now: h.now) }
        }
        h.drain()
        XCTAssertEqual(h.acks.count, values.count + 1)
        XCTAssertEqual(titles(h.events), ["add Turn left"], "the frame is whole: the chunk was not appended twice")
        XCTAssertEqual(h.frameTexts, [Harness.receipt(50)])
    }

    // MARK: keys

    func testKeyReceiptsComeOnlyAfterTheKeysAreStored() {
        let h = Harness()
        h.clear()
        h.writeKeys(h.phone.prepare(exchange: 1, receipt: 101))
        XCTAssertEqual(h.stored.count, 1)
        XCTAssertEqual(h.frameTexts, [Harness.receipt(101)])
        h.writeKeys(h.phone.activate(exchange: 1, receipt: 201))
        XCTAssertEqual(h.stored.count, 2)
        XCTAssertEqual(h.frameTexts, [Harness.receipt(101), Harness.receipt(201)])
        XCTAssertEqual(h.receiver.keyRing.newest?.exporterSecret, h.phone.exporterSecret(1))

        // The receipt waits for the store's answer, and a failed store sends none.
        let slow = Harness()
        slow.clear()
        for value in TestPhone.values(slow.phone.prepare(exchange: 2, receipt: 102), size: 244) {
            slow.receiver.written(.keyExchange, value: value, now: slow.now)
        }
        guard case .storeKeys(let bytes)? = slow.receiver.pollOutput() else { return XCTFail("no store request") }
        XCTAssertNil(slow.receiver.pollOutput(), "nothing indicated before the store answers")
        XCTAssertNotNil(try? KeyRing(decoding: bytes, now: slow.now, sha256: sha256).preparedKey(for: ExchangeID(uuidFromText(TestPhone.uuid(2))!)))
        slow.receiver.keysStored(ok: false)
        slow.drain()
        XCTAssertEqual(slow.frames, [])
    }

    func testKeyFramesArriveInAnyValueSize() {
        // Write Without Response bursts of MTU − 3 at MTU 23, and 512-byte long writes.
        for size in [20, 512] {
            let h = Harness()
            h.clear()
            h.writeKeys(h.phone.prepare(exchange: 1, receipt: 101), size: size)
            XCTAssertEqual(h.frameTexts, [Harness.receipt(101)], "\(size)")
        }
    }

    func testActivatingAnUnknownExchangeGetsNoReceipt() {
        let h = Harness()
        h.clear()
        h.writeKeys(h.phone.activate(exchange: 9, receipt: 209))
        XCTAssertEqual(h.frames, [])
        XCTAssertEqual(h.stored, [])
        XCTAssertNil(h.receiver.keyRing.newest)
    }

    func testASeedThatDoesNotGiveThePublicKeyIsRefused() {
        let h = Harness()
        h.clear()
        // The prepare carries the seed of exchange 1 with the public key of seed 2.
        var prepare = String(decoding: h.phone.prepare(exchange: 1, receipt: 101), as: UTF8.self)
        prepare = prepare.replacingOccurrences(of: Base64.encode(TestCryptography.publicKey(seed: TestPhone.seed(1))),
                                               with: Base64.encode(TestCryptography.publicKey(seed: TestPhone.seed(2))))
        h.writeKeys(Array(prepare.utf8))
        h.writeKeys(h.phone.activate(exchange: 1, receipt: 201))
        XCTAssertEqual(h.frameTexts, [Harness.receipt(101)], "prepared, but not activated")
        XCTAssertNil(h.receiver.keyRing.newest)
    }

    func testPrepareAndActivateMayBeRepeated() {
        let h = Harness()
        h.key(1)
        h.clear()
        h.key(1)
        XCTAssertEqual(h.frameTexts, [Harness.receipt(101), Harness.receipt(201)], "receipts again")
        XCTAssertEqual(h.receiver.keyRing.generations.count, 1)
    }

    func testTheLegacySingleShotPacketKeysAtOnce() {
        let h = Harness()
        h.clear()
        h.writeKeys(h.phone.legacy(exchange: 1, receipt: 301))
        XCTAssertEqual(h.frameTexts, [Harness.receipt(301)])
        // Without a receipt id it is taken all the same; a new key pair is a rotation.
        h.writeKeys(h.phone.legacy(exchange: 2, receipt: nil))
        XCTAssertEqual(h.receiver.keyRing.generations.map { $0.exporterSecret }, [h.phone.exporterSecret(2), h.phone.exporterSecret(1)])
        h.writeEnvelope(h.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10), exchange: 1, receipt: 51))
        XCTAssertEqual(titles(h.events), ["add Turn left"], "the replaced key is in its grace")
    }

    func testRotationKeepsAReplacedKeyFor300Seconds() {
        let h = Harness()
        h.key(1)
        h.key(2)
        h.clear()
        h.writeEnvelope(h.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10), exchange: 1, receipt: 51))
        XCTAssertEqual(titles(h.events), ["add Turn left"], "the old key still opens")
        h.advance(seconds: 301)
        h.writeEnvelope(h.phone.envelope(TestPhone.event("add", id: 2, sentAt: 20, notification: 2), exchange: 1, receipt: 52))
        XCTAssertEqual(h.events.count, 1, "after its grace the old key is gone")
        XCTAssertFalse(h.frameTexts.contains(Harness.receipt(52)))
        h.writeEnvelope(h.phone.envelope(TestPhone.event("add", id: 3, sentAt: 30, notification: 3, title: "Keep right"), exchange: 2, receipt: 53))
        XCTAssertEqual(titles(h.events), ["add Turn left", "add Keep right"])
        // The expiry was stored: the file no longer has generation 1.
        let last = try? KeyRing(decoding: h.stored.last ?? [], now: h.now, sha256: sha256)
        XCTAssertEqual(last?.generations.count, 1)
    }

    func testKeysSurviveARestart() {
        let h = Harness()
        h.key(1)
        let file = h.stored.last!
        let restarted = Harness()
        restarted.receiver.loadKeys(file, now: restarted.now)
        restarted.clear()
        restarted.writeEnvelope(restarted.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10), exchange: 1, receipt: 51))
        XCTAssertEqual(titles(restarted.events), ["add Turn left"])

        // A restart between prepare and activate: the activation still finds its key.
        let between = Harness()
        between.writeKeys(between.phone.prepare(exchange: 3, receipt: 103))
        let after = Harness()
        after.receiver.loadKeys(between.stored.last!, now: after.now)
        after.clear()
        after.writeKeys(after.phone.activate(exchange: 3, receipt: 203))
        XCTAssertEqual(after.frameTexts, [Harness.receipt(203)])

        // A damaged file is ignored: no keys, no crash.
        let damaged = Harness()
        var bytes = file
        bytes[bytes.count / 2] ^= 0xFF
        damaged.receiver.loadKeys(bytes, now: damaged.now)
        XCTAssertTrue(damaged.receiver.keyRing.generations.isEmpty)
    }

    // MARK: deliveries

    func testADuplicateEnvelopeIsAckedAgainAndShownOnce() {
        let h = Harness()
        h.key(1)
        h.clear()
        let frame = h.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10), exchange: 1, receipt: 51)
        h.writeEnvelope(frame)
        h.writeEnvelope(frame)
        XCTAssertEqual(titles(h.events), ["add Turn left"])
        XCTAssertEqual(h.frameTexts, [Harness.receipt(51), Harness.receipt(51)])
    }

    func testAnEnvelopeBeforeItsKeyWaitsThenIsDelivered() {
        let h = Harness()
        h.writeKeys(h.phone.prepare(exchange: 1, receipt: 101))
        h.clear()
        h.writeEnvelope(h.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10), exchange: 1, receipt: 51))
        XCTAssertEqual(h.events, [])
        XCTAssertEqual(h.frames, [], "no receipt while it waits")
        h.writeKeys(h.phone.activate(exchange: 1, receipt: 201))
        XCTAssertEqual(titles(h.events), ["add Turn left"])
        XCTAssertEqual(Set(h.frameTexts), [Harness.receipt(201), Harness.receipt(51)])
    }

    func testAWaitingEnvelopeExpires() {
        let h = Harness()
        h.writeKeys(h.phone.prepare(exchange: 1, receipt: 101))
        h.writeEnvelope(h.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10), exchange: 1, receipt: 51))
        h.advance(seconds: 299)
        h.clear()
        h.advance(seconds: 1)
        h.writeKeys(h.phone.activate(exchange: 1, receipt: 201))
        XCTAssertEqual(h.events, [], "it waited 300 s and was dropped")
        XCTAssertEqual(h.frameTexts, [Harness.receipt(201)])
    }

    func testTheInboxIsBounded() {
        var inbox = Inbox()
        let t = Instant(milliseconds: 0)
        for n in 0..<20 {
            inbox.add(NotificationEnvelope(sessionID: SessionID(uuidFromText(TestPhone.uuid(n))!), sealed: [], receiptID: nil),
                      arrived: t.adding(seconds: Int64(n)))
        }
        XCTAssertEqual(inbox.count, 16)
        XCTAssertEqual(inbox.takeAll().first?.envelope.sessionID.description, TestPhone.uuid(4), "the oldest went")
        // And in bytes: three envelopes of 900 KiB do not all wait.
        for n in 0..<3 {
            inbox.add(NotificationEnvelope(sessionID: SessionID(uuidFromText(TestPhone.uuid(n))!), sealed: [UInt8](repeating: 0, count: 900 * 1024),
                                           receiptID: nil), arrived: t)
        }
        XCTAssertEqual(inbox.count, 2)
        XCTAssertEqual(inbox.bytes, 1800 * 1024)
    }

    func testATamperedEnvelopeIsRefusedWithoutHarm() {
        let h = Harness()
        h.key(1)
        h.clear()
        let frame = h.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10), exchange: 1, receipt: 51)
        var envelope = try! NotificationEnvelope.parse(frame)
        var sealed = envelope.sealed
        sealed[20] ^= 0x01
        envelope = NotificationEnvelope(sessionID: envelope.sessionID, sealed: sealed, receiptID: envelope.receiptID)
        h.writeEnvelope(envelope.encoded)
        XCTAssertEqual(h.events, [])
        XCTAssertEqual(h.frames, [])
        // Garbage frames are refused too, and the next good envelope goes through.
        h.writeEnvelope(Array("{\"sessionID\":1}".utf8))
        h.writeEnvelope([0xFF, 0x00])
        h.writeEnvelope(frame)
        XCTAssertEqual(titles(h.events), ["add Turn left"])
        XCTAssertEqual(h.frameTexts, [Harness.receipt(51)])
    }

    func testTheNewestSentAtWins() {
        let h = Harness()
        h.key(1)
        h.clear()
        h.writeEnvelope(h.phone.envelope(TestPhone.event("update", id: 2, sentAt: 20, title: "In 100 m"), exchange: 1, receipt: 52))
        // Sent earlier, arrived later: ignored, but still acknowledged.
        h.writeEnvelope(h.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10, title: "In 500 m"), exchange: 1, receipt: 51))
        h.writeEnvelope(h.phone.envelope(TestPhone.event("remove", id: 3, sentAt: 30), exchange: 1, receipt: 53))
        XCTAssertEqual(titles(h.events), ["update In 100 m", "remove n1"])
        XCTAssertEqual(h.frameTexts, [Harness.receipt(52), Harness.receipt(51), Harness.receipt(53)])
    }

    func testEventsFromBeforeRemoveAllAreIgnored() {
        let h = Harness()
        h.key(1)
        h.clear()
        h.writeEnvelope(h.phone.envelope(TestPhone.event("removeAll", id: 5, sentAt: 50), exchange: 1, receipt: 55))
        h.writeEnvelope(h.phone.envelope(TestPhone.event("add", id: 4, sentAt: 40, title: "stale"), exchange: 1, receipt: 54))
        h.writeEnvelope(h.phone.envelope(TestPhone.event("removeAll", id: 3, sentAt: 30), exchange: 1, receipt: 53))
        h.writeEnvelope(h.phone.envelope(TestPhone.event("add", id: 6, sentAt: 60, title: "fresh"), exchange: 1, receipt: 56))
        XCTAssertEqual(titles(h.events), ["removeAll", "add fresh"])
        XCTAssertEqual(h.frames.count, 4, "every one acknowledged")
    }

    // MARK: reverse

    func testDisplayedGoesBackSealedWithTheNewestKey() throws {
        let h = Harness()
        h.key(1)
        h.writeEnvelope(h.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10), exchange: 1, receipt: 51))
        h.clear()
        h.receiver.mtuChanged(23)
        h.receiver.displayed(maps, didAlert: true)
        h.drain()
        XCTAssertTrue(h.indications.allSatisfy { $0.count <= 20 }, "slices of MTU − 3")
        XCTAssertEqual(h.frames.count, 1)
        let envelope = try NotificationEnvelope.parse(h.frames[0])
        XCTAssertNil(envelope.receiptID)
        XCTAssertEqual(envelope.sessionID.description, h.phone.session)
        let plaintext = try XCTUnwrap(TestCryptography.open(key: h.phone.key(1, direction: "-AccessoryToHost-"), sealed: envelope.sealed))
        let command = try JSONParser.parse(plaintext)
        XCTAssertEqual(try command.int("version"), 3)
        XCTAssertEqual(try command.string("kind"), "displayed")
        XCTAssertEqual(try command.optionalBool("didAlert"), true)
        XCTAssertEqual(try command.string("replyTo"), TestPhone.uuid(1001))
        XCTAssertEqual(try command.object("identity").string("sourceIdentifier"), "com.google.Maps")
        XCTAssertNotNil(uuidFromText(try command.string("id")))
        // The phone's HostToAccessory key does not open it.
        XCTAssertNil(TestCryptography.open(key: h.phone.key(1), sealed: envelope.sealed))
    }

    func testDisconnectionDropsHalfFrames() {
        let h = Harness()
        h.key(1)
        let values = TestPhone.wrapped(h.phone.envelope(TestPhone.event("add", id: 1, sentAt: 10), exchange: 1, receipt: 51), firstChunk: 100)
        for value in values.dropLast() { h.receiver.written(.notifications, value: value, now: h.now) }
        h.receiver.disconnected()
        h.drain()
        h.clear()
        h.receiver.subscribed(now: h.now)
        h.receiver.written(.notifications, value: values.last!, now: h.now)
        h.drain()
        XCTAssertEqual(h.events, [])
        XCTAssertEqual(h.frameTexts, ["NB-RECEIVER-READY-1"], "readiness again on the new link; the END alone is no frame")
    }
}
