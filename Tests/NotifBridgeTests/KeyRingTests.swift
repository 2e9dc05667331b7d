import XCTest
import BluetoothCore
@testable import NotifBridge
import HPKE

final class KeyRingTests: XCTestCase {
    private func exchange(_ n: Int) -> ExchangeID { ExchangeID(uuidFromText(TestPhone.uuid(n))!) }

    private func prepared(_ n: Int, seed: Int? = nil) -> PreparedKey {
        let s = TestPhone.seed(seed ?? n)
        return PreparedKey(exchangeID: exchange(n), seed: s, publicKey: TestCryptography.publicKey(seed: s))
    }

    private func generation(_ n: Int) -> KeyGeneration {
        KeyGeneration(exchangeID: exchange(n), info: Array("XWing-Version1-id".utf8), exporterSecret: [UInt8](repeating: UInt8(n), count: 32))
    }

    let t0 = Instant(milliseconds: 5_000_000)

    func testPrepareIsRepeatableAndBounded() {
        var ring = KeyRing()
        XCTAssertEqual(ring.prepare(prepared(1)), .added)
        XCTAssertEqual(ring.prepare(prepared(1)), .repeated)
        XCTAssertEqual(ring.prepare(prepared(1, seed: 9)), .changed)
        XCTAssertEqual(ring.preparedKey(for: exchange(1))?.seed, TestPhone.seed(9))
        for n in 2...5 { XCTAssertEqual(ring.prepare(prepared(n)), .added) }
        XCTAssertNil(ring.preparedKey(for: exchange(1)), "the oldest of five went")
        XCTAssertNotNil(ring.preparedKey(for: exchange(5)))
        XCTAssertTrue(ring.awaitsActivation)
    }

    func testFourGenerationsNewestFirstWithGrace() {
        var ring = KeyRing()
        for n in 1...5 {
            XCTAssertEqual(ring.activate(generation(n), now: t0.adding(seconds: Int64(n))), .activated)
        }
        XCTAssertEqual(ring.generations.map { $0.exchangeID }, [5, 4, 3, 2].map(exchange))
        XCTAssertEqual(ring.newest?.exchangeID, exchange(5))
        XCTAssertNil(ring.newest?.replacedAt)
        // Generation 4 was replaced at t0+5 s: valid until t0+305 s.
        XCTAssertEqual(ring.usable(at: t0.adding(seconds: 300)).map { $0.exchangeID }, [5, 4, 3, 2].map(exchange))
        // Generation 2 was replaced at t0+3 s, 3 at t0+4 s.
        XCTAssertEqual(ring.usable(at: t0.adding(seconds: 303)).map { $0.exchangeID }, [5, 4, 3].map(exchange))
        XCTAssertEqual(ring.usable(at: t0.adding(seconds: 305)).map { $0.exchangeID }, [5].map(exchange))
        XCTAssertEqual(ring.nextExpiry, t0.adding(seconds: 303))
        XCTAssertTrue(ring.expire(now: t0.adding(seconds: 400)))
        XCTAssertEqual(ring.generations.count, 1)
        XCTAssertNil(ring.nextExpiry, "the newest never expires")
    }

    func testActivateIsRepeatable() {
        var ring = KeyRing()
        _ = ring.prepare(prepared(1))
        XCTAssertEqual(ring.activate(generation(1), now: t0), .activated)
        XCTAssertFalse(ring.awaitsActivation)
        _ = ring.activate(generation(2), now: t0.adding(seconds: 1))
        // Activating 1 again with the same secret changes nothing (2 stays newest).
        XCTAssertEqual(ring.activate(generation(1), now: t0.adding(seconds: 2)), .repeated)
        XCTAssertEqual(ring.newest?.exchangeID, exchange(2))
        XCTAssertEqual(ring.generations.count, 2)
    }

    func testPersistenceRoundTrip() throws {
        var ring = KeyRing()
        _ = ring.prepare(prepared(1))
        _ = ring.prepare(prepared(2))
        _ = ring.activate(generation(1), now: t0)
        _ = ring.activate(generation(3), now: t0)
        let bytes = ring.encoded(now: t0, sha256: sha256)
        XCTAssertEqual(Array(bytes.prefix(5)), Array("NBKR".utf8) + [2])
        let later = Instant(milliseconds: 42)
        let loaded = try KeyRing(decoding: bytes, now: later, sha256: sha256)
        XCTAssertEqual(loaded.prepared, ring.prepared)
        XCTAssertEqual(loaded.prepared.map { $0.exchangeID }, [exchange(2)], "an activated key's seed is not kept")
        XCTAssertEqual(loaded.spent, [exchange(1), exchange(3)])
        XCTAssertEqual(loaded.generations.map { $0.exchangeID }, ring.generations.map { $0.exchangeID })
        XCTAssertEqual(loaded.generations.map { $0.exporterSecret }, ring.generations.map { $0.exporterSecret })
        // The replaced generation's grace goes on from what was used (none
        // here), less the interval between writes: never a fresh 300 s.
        XCTAssertEqual(loaded.generations.map { $0.replacedAt }, [nil, later.adding(milliseconds: -KeyRing.graceWriteInterval)])
        XCTAssertEqual(try KeyRing(decoding: KeyRing().encoded(now: t0, sha256: sha256), now: later, sha256: sha256), KeyRing())
    }

    func testDamagedBytesAreRefused() {
        var ring = KeyRing()
        _ = ring.prepare(prepared(1))
        _ = ring.activate(generation(1), now: t0)
        let good = ring.encoded(now: t0, sha256: sha256)
        func refusal(_ bytes: [UInt8]) -> KeyRingCodingError? {
            do throws(KeyRingCodingError) {
                _ = try KeyRing(decoding: bytes, now: t0, sha256: sha256)
                return nil
            } catch { return error }
        }
        var flipped = good
        flipped[30] ^= 0x01
        XCTAssertEqual(refusal(flipped), .checksumMismatch)
        XCTAssertEqual(refusal(Array(good.dropLast())), .checksumMismatch)
        XCTAssertEqual(refusal([]), .notAKeyRing)
        XCTAssertEqual(refusal(Array("NBKR".utf8) + [3, 0, 0]), .unsupportedVersion(3))
        XCTAssertEqual(refusal(Array("NBKR".utf8) + [1]), .truncated)
        // A count the format does not allow, with a valid checksum.
        let tooMany = Array("NBKR".utf8) + [2, 9, 0]
        XCTAssertEqual(refusal(tooMany + sha256(tooMany).prefix(8)), .invalid("9 prepared keys"))
        let truncatedBody = Array(good[0..<40])
        XCTAssertEqual(refusal(truncatedBody + sha256(truncatedBody).prefix(8)), .truncated)
        // A time that is not a number (it never equals itself, so replay
        // checks could not match it), with a valid checksum.
        let nan = Array(withUnsafeBytes(of: Double.nan.bitPattern.littleEndian) { Array($0) })
        let noneBefore: [UInt8] = Array("NBKR".utf8) + [2, 0, 0, 0]
        let nanLedger = noneBefore + [0] + [UInt8](repeating: 0, count: 8) + [1, 0] + [UInt8](repeating: 7, count: 16) + nan + [0, 0]
        XCTAssertEqual(refusal(nanLedger + sha256(nanLedger).prefix(8)), .invalid("ledger time"))
        let nanRemoveAll = noneBefore + [1] + nan + [0, 0, 0, 0]
        XCTAssertEqual(refusal(nanRemoveAll + sha256(nanRemoveAll).prefix(8)), .invalid("removeAll time"))
    }

    /// A version 1 file (the format before replays were stored): read, its
    /// activated seed dropped and its exchanges remembered as spent.
    func testAVersion1FileIsStillRead() throws {
        let key = prepared(1)
        var body = Array("NBKR".utf8) + [1, 2]
        body += exchange(1).uuid.fullLittleEndian + [1] + key.seed + [0xC0, 0x04] + key.publicKey
        body += exchange(2).uuid.fullLittleEndian + [0] + TestPhone.seed(2) + [0xC0, 0x04] + TestCryptography.publicKey(seed: TestPhone.seed(2))
        body += [2]
        let info = Array("XWing-Version1-id".utf8)
        body += exchange(3).uuid.fullLittleEndian + [0, UInt8(info.count), 0] + info + [UInt8](repeating: 3, count: 32)
        body += exchange(1).uuid.fullLittleEndian + [1, UInt8(info.count), 0] + info + [UInt8](repeating: 1, count: 32)
        let ring = try KeyRing(decoding: body + sha256(body).prefix(8), now: t0, sha256: sha256)
        XCTAssertEqual(ring.prepared.map { $0.exchangeID }, [exchange(2)])
        XCTAssertEqual(ring.spent, [exchange(1), exchange(3)])
        XCTAssertEqual(ring.generations.map { $0.exchangeID }, [exchange(3), exchange(1)])
        XCTAssertEqual(ring.generations.map { $0.replacedAt }, [nil, t0.adding(milliseconds: -KeyRing.graceWriteInterval)])
        XCTAssertEqual(Array(ring.encoded(now: t0, sha256: sha256)[4...4]), [2], "written back as version 2")
    }

    func testAnExchangeIsActivatedOnce() {
        var ring = KeyRing()
        _ = ring.activate(generation(1), now: t0)
        _ = ring.activate(generation(2), now: t0)
        XCTAssertTrue(ring.expire(now: t0.adding(seconds: 300)))
        XCTAssertEqual(ring.prepare(prepared(1)), .spent)
        XCTAssertEqual(ring.activate(generation(1), now: t0.adding(seconds: 301)), .rolledBack)
        XCTAssertEqual(ring.generations.map { $0.exchangeID }, [exchange(2)])
        XCTAssertEqual(ring.activate(generation(2), now: t0.adding(seconds: 302)), .repeated)
    }

    /// The memory of a seed is zeroed when its key is activated, and an
    /// exporter secret's when its grace ends, for every copy sharing it.
    func testSecretsAreWipedWhenDropped() {
        var ring = KeyRing()
        let key = prepared(1)
        let first = generation(1)
        _ = ring.prepare(key)
        XCTAssertEqual(key.seed, TestPhone.seed(1))
        _ = ring.activate(first, now: t0)
        XCTAssertEqual(key.seed, [UInt8](repeating: 0, count: 32))
        XCTAssertEqual(first.exporterSecret, [UInt8](repeating: 1, count: 32), "in use")
        _ = ring.activate(generation(2), now: t0)
        _ = ring.expire(now: t0.adding(seconds: 300))
        XCTAssertEqual(first.exporterSecret, [UInt8](repeating: 0, count: 32))
    }
}
