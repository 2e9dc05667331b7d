import Testing
import BluetoothCore
@testable import ATT
@testable import GATT

/// Long writes through Prepare Write + Execute Write (Core Vol 3 Part F
/// 3.4.6), on a database with one writable characteristic.
@Suite struct PreparedWriteTests {
    /// 1 service, 2/3 the writable characteristic, 4/5 a read-only one.
    func harness() -> Harness {
        let db = GATTDatabase()
        db.addService(BluetoothUUID(0xFFF0))
        db.addCharacteristic(BluetoothUUID(0xFFF1), properties: [.write, .writeWithoutResponse], permissions: .write)
        db.addCharacteristic(BluetoothUUID(0xFFF2), properties: .read, permissions: .read, value: [1])
        return Harness(database: db)
    }

    func writes(_ t: Harness) -> [GATTServerWrite] {
        var out: [GATTServerWrite] = []
        while let w = t.bearer.server.pollWrite() { out.append(w) }
        return out
    }

    @Test func partsAreEchoedAndWrittenWholeOnExecute() {
        let t = harness()
        #expect(t.ask("16 0300 0000 414243") == h("17 0300 0000 414243"))
        #expect(t.ask("16 0300 0300 4445") == h("17 0300 0300 4445"))
        #expect(writes(t).isEmpty, "nothing is written before execution")
        #expect(t.ask("18 01") == h("19"))
        #expect(writes(t) == [GATTServerWrite(handle: AttributeHandle(3), value: bytes("4142434445"))])
        // The queue is empty again: executing once more writes nothing.
        #expect(t.ask("18 01") == h("19"))
        #expect(writes(t).isEmpty)
    }

    @Test func aLaterPartMayRewriteAnEarlierOne() {
        let t = harness()
        _ = t.ask("16 0300 0000 41424344")
        _ = t.ask("16 0300 0100 58")
        #expect(t.ask("18 01") == h("19"))
        #expect(writes(t) == [GATTServerWrite(handle: AttributeHandle(3), value: bytes("41584344"))])
    }

    @Test func cancelDropsEverything() {
        let t = harness()
        _ = t.ask("16 0300 0000 4142")
        #expect(t.ask("18 00") == h("19"))
        #expect(t.ask("18 01") == h("19"))
        #expect(writes(t).isEmpty)
    }

    @Test func aGapIsAnInvalidOffsetAndNothingIsWritten() {
        let t = harness()
        _ = t.ask("16 0300 0000 4142")
        _ = t.ask("16 0300 0500 43")
        #expect(t.ask("18 01") == h("01 18 0300 07"))
        #expect(writes(t).isEmpty)
        // The failed execution emptied the queue.
        #expect(t.ask("18 01") == h("19"))
    }

    @Test func valuesLongerThan512BytesAreRefused() {
        let t = harness()
        let part = String(repeating: "aa", count: 18)
        var offset = 0
        while offset < 513 {
            #expect(t.ask("16 0300 " + hexString([UInt8(offset & 0xFF), UInt8(offset >> 8)]) + part) != nil)
            offset += 18
        }
        #expect(t.ask("18 01") == h("01 18 0300 0d"))
        #expect(writes(t).isEmpty)
    }

    @Test func theQueueIsBounded() {
        let t = harness()
        for i in 0..<GATTServer.prepareQueueLimit {
            #expect(t.ask("16 0300 " + hexString([UInt8(i), 0]) + "41") == h("17 0300 " + hexString([UInt8(i), 0]) + "41"))
        }
        #expect(t.ask("16 0300 4000 41") == h("01 16 0300 09"))
        #expect(t.ask("18 00") == h("19"))
        // Bytes are bounded too.
        let big = String(repeating: "bb", count: 18)
        var refused = false
        for i in 0..<60 {
            if t.ask("16 0300 " + hexString([UInt8(i * 18 & 0xFF), UInt8(i * 18 >> 8)]) + big) == h("01 16 0300 09") { refused = true; break }
        }
        #expect(refused)
    }

    /// Found by fuzzing: a 27-byte Prepare Write at the default ATT_MTU of 23
    /// was echoed whole, 27 bytes over a 23-byte MTU.
    @Test func requestsOverTheMTUAreRefusedAndNeverEchoed() {
        let t = harness()
        let part = String(repeating: "aa", count: 22)
        #expect(t.bearer.mtu == 23)
        #expect(t.ask("16 0300 0000 " + part) == h("01 16 0000 04"))
        #expect(t.ask("12 0300 " + part) == h("01 12 0000 04"))
        #expect(t.ask("52 0300 " + part) == nil, "a command is not answered")
        #expect(t.ask("18 01") == h("19"))
        #expect(writes(t).isEmpty, "nothing over the MTU is queued or written")
        // At the MTU exactly, the part is prepared and echoed.
        let fits = String(repeating: "bb", count: 18)
        #expect(t.ask("16 0300 0000 " + fits) == h("17 0300 0000 " + fits))
    }

    @Test func permissionsAreCheckedWhenPreparing() {
        let t = harness()
        #expect(t.ask("16 0500 0000 41") == h("01 16 0500 03"))
        #expect(t.ask("16 6400 0000 41") == h("01 16 6400 01"))
    }

    @Test func plainWritesAndCommandsReachTheOwner() {
        let t = harness()
        #expect(t.ask("12 0300 4142") == h("13"))
        #expect(t.ask("52 0300 43") == nil)
        #expect(writes(t) == [GATTServerWrite(handle: AttributeHandle(3), value: bytes("4142")),
                              GATTServerWrite(handle: AttributeHandle(3), value: bytes("43"))])
        // The value is handed over, not kept.
        #expect(t.bearer.server.database.attribute(at: AttributeHandle(3))?.value == [])
    }

    @Test func aLongCCCDWriteIsCheckedLikeAPlainOne() {
        let db = GATTDatabase()
        db.addService(BluetoothUUID(0xFFF0))
        db.addCharacteristic(BluetoothUUID(0xFFF3), properties: .indicate, permissions: [])
        let t = Harness(database: db)
        _ = t.ask("16 0400 0000 02")
        _ = t.ask("16 0400 0100 00")
        #expect(t.ask("18 01") == h("19"))
        #expect(t.ask("0a 0400") == h("0b 0200"))
        _ = t.ask("16 0400 0000 010000")
        #expect(t.ask("18 01") == h("01 18 0400 0d"))
    }

    /// Execute Write is all or nothing (Core Vol 3 Part F 3.4.6.3): one
    /// bad value anywhere in the queue and no value is written, the error
    /// naming its handle. 1 service, 2/3 a writable characteristic, 4/5 an
    /// indicate-only one with its CCCD at 6, 7/8 one written only over an
    /// encrypted link.
    @Test(arguments: [
        // A gap in the second characteristic's parts: Invalid Offset.
        (["16 0300 0000 4142", "16 0800 0000 41", "16 0800 0300 42"], "01 18 0800 07"),
        // The CCCD's value is three bytes: Invalid Attribute Value Length.
        (["16 0300 0000 4142", "16 0600 0000 020000"], "01 18 0600 0d"),
        // The CCCD asks for notifications its characteristic does not send.
        (["16 0300 0000 4142", "16 0600 0000 0100"], "01 18 0600 13"),
        // Over 512 bytes once assembled, after a good CCCD part.
        (["16 0600 0000 0200"] + PreparedWriteTests.partsOf513Bytes(at: "0300"), "01 18 0300 0d"),
    ])
    func oneBadPartAndNothingIsWritten(parts: [String], answer: String) {
        let t = atomicHarness()
        t.bearer.server.linkEncrypted = true
        for part in parts { #expect(t.ask(part)?.hasPrefix("17") == true, "\(part) is prepared") }
        #expect(t.ask("18 01") == h(answer))
        #expect(writes(t).isEmpty, "nothing handed over")
        #expect(t.ask("0a 0600") == h("0b 0000"), "the CCCD is untouched")
        #expect(t.ask("18 01") == h("19"), "the queue was emptied")
    }

    /// A handle that no longer allows the write when the queue is executed
    /// (encryption paused for a key refresh): nothing else is written either.
    @Test func aPartThatMayNoLongerBeWrittenStopsTheWholeQueue() {
        let t = atomicHarness()
        t.bearer.server.linkEncrypted = true
        #expect(t.ask("16 0600 0000 0200") == h("17 0600 0000 0200"))
        #expect(t.ask("16 0300 0000 4142") == h("17 0300 0000 4142"))
        #expect(t.ask("16 0800 0000 43") == h("17 0800 0000 43"))
        t.bearer.server.linkEncrypted = false
        #expect(t.ask("18 01") == h("01 18 0800 05"))
        #expect(writes(t).isEmpty)
        #expect(t.ask("0a 0600") == h("0b 0000"))
        // The same queue on an encrypted link is written whole.
        t.bearer.server.linkEncrypted = true
        _ = t.ask("16 0600 0000 0200")
        _ = t.ask("16 0300 0000 4142")
        _ = t.ask("16 0800 0000 43")
        #expect(t.ask("18 01") == h("19"))
        #expect(writes(t) == [GATTServerWrite(handle: AttributeHandle(3), value: bytes("4142")),
                              GATTServerWrite(handle: AttributeHandle(8), value: bytes("43"))])
        #expect(t.ask("0a 0600") == h("0b 0200"))
    }

    /// 513 bytes for `handle` in parts of 18 (the most a Prepare Write
    /// carries at the default ATT_MTU).
    static func partsOf513Bytes(at handle: String) -> [String] {
        stride(from: 0, to: 513, by: 18).map { offset in
            "16 \(handle) " + hexString([UInt8(offset & 0xFF), UInt8(offset >> 8)]) + String(repeating: "aa", count: min(18, 513 - offset))
        }
    }

    func atomicHarness() -> Harness {
        let db = GATTDatabase()
        db.addService(BluetoothUUID(0xFFF0))
        db.addCharacteristic(BluetoothUUID(0xFFF1), properties: .write, permissions: .write)
        db.addCharacteristic(BluetoothUUID(0xFFF3), properties: .indicate, permissions: [])
        db.addCharacteristic(BluetoothUUID(0xFFF4), properties: .write, permissions: [.write, .encrypted])
        return Harness(database: db)
    }

    @Test func indicationsOnAnyCharacteristicWaitForTheCCCD() {
        let db = GATTDatabase()
        db.addService(BluetoothUUID(0xFFF0))
        let value = db.addCharacteristic(BluetoothUUID(0xFFF3), properties: [.indicate, .read], permissions: .read)
        let t = Harness(database: db)
        #expect(!t.bearer.indicate([1, 2], at: value))
        #expect(t.ask("12 0400 0200") == h("13"))
        #expect(t.bearer.indicate([1, 2], at: value))
        #expect(t.bearer.indicate([3], at: value))
        #expect(t.sent() == [h("1d 0300 0102")], "one at a time")
        t.deliver("1e")
        #expect(t.sent() == [h("1d 0300 03")])
    }
}
