import Testing
import BluetoothCore
@testable import ATT
@testable import GATT

/// Our database: 1 GAP, 2/3 Device Name, 4/5 Appearance, 6 GATT,
/// 7/8/9 Service Changed + CCCD, 10/11 Client Supported Features,
/// 12/13 Database Hash.
@Suite struct GATTServerTests {
    let name = "Head Unit"
    let nameHex = "4865616420556e6974"

    @Test func answersAnIOSStyleDiscovery() {
        let t = Harness()
        #expect(t.ask("02 0f02") == h("03 f700"))
        #expect(t.bearer.mtu == 247)
        #expect(t.events() == [.mtuChanged(247)])
        // Primary services.
        #expect(t.ask("10 0100 ffff 0028") == h("11 06 0100 0500 0018 0600 0d00 0118"))
        #expect(t.ask("10 0e00 ffff 0028") == h("01 10 0e00 0a"))
        // No secondary services, no includes.
        #expect(t.ask("10 0100 ffff 0128") == h("01 10 0100 0a"))
        #expect(t.ask("08 0100 0500 0228") == h("01 08 0100 0a"))
        // Characteristics of GAP, then GATT.
        #expect(t.ask("08 0100 0500 0328") == h("09 07 0200 02 0300 002a 0400 02 0500 012a"))
        #expect(t.ask("08 0600 0d00 0328") == h("09 07 0700 20 0800 052a 0a00 0a 0b00 292b 0c00 02 0d00 2a2b"))
        #expect(t.ask("08 0e00 0d00 0328") == h("01 08 0e00 01"))  // inverted range
        // Descriptors of Service Changed.
        #expect(t.ask("04 0900 0900") == h("05 01 0900 0229"))
        // Values.
        #expect(t.ask("0a 0300") == h("0b" + nameHex))
        #expect(t.ask("0a 0500") == h("0b c108"))   // Appearance: Car
        // Subscribe to Service Changed.
        #expect(t.ask("12 0900 0200") == h("13"))
        #expect(t.ask("0a 0900") == h("0b 0200"))
        // Robust caching: enable, read back, read the hash by type.
        #expect(t.ask("12 0b00 01") == h("13"))
        #expect(t.ask("0a 0b00") == h("0b 01"))
        let hash = t.bearer.server.database.databaseHash!
        #expect(hash.count == 16)
        #expect(t.ask("08 0100 ffff 2a2b") == h("09 12 0d00" + hexString(hash)))
    }

    @Test func findByTypeValueMatchesServiceUUIDsInEitherWidth() {
        let t = Harness()
        #expect(t.ask("06 0100 ffff 0028 0118") == h("07 0600 0d00"))
        #expect(t.ask("06 0100 ffff 0028" + le(BluetoothUUID(0x1801))) == h("07 0600 0d00"))
        #expect(t.ask("06 0100 ffff 0028" + le(nnService)) == h("01 06 0100 0a"))
        #expect(t.ask("06 0700 ffff 0028 0018") == h("01 06 0700 0a"))
        #expect(t.ask("06 0000 ffff 0028 0018") == h("01 06 0000 01"))
    }

    @Test func findInformationOverEverything() {
        let t = Harness()
        // MTU 23: (23 - 2) / 4 = 5 entries per response.
        #expect(t.ask("04 0100 ffff") == h("05 01 0100 0028 0200 0328 0300 002a 0400 0328 0500 012a"))
        #expect(t.ask("04 0d00 ffff") == h("05 01 0d00 2a2b"))
        #expect(t.ask("04 0e00 ffff") == h("01 04 0e00 0a"))
        #expect(t.ask("04 0000 ffff") == h("01 04 0000 01"))
        #expect(t.ask("04 0500 0100") == h("01 04 0500 01"))
    }

    @Test func readErrors() {
        let t = Harness()
        #expect(t.ask("0a 0000") == h("01 0a 0000 01"))
        #expect(t.ask("0a 6400") == h("01 0a 6400 01"))
        #expect(t.ask("0a 0800") == h("01 0a 0800 02"))           // Service Changed: indicate only
        #expect(t.ask("0c 0300 0000") == h("01 0c 0300 0b"))      // short value: not long
        #expect(t.ask("0c 0800 0000") == h("01 0c 0800 02"))
        #expect(t.ask("0c 6400 0000") == h("01 0c 6400 01"))
        #expect(t.ask("08 0600 0d00 052a") == h("01 08 0800 02"))  // by type, first match unreadable
        #expect(t.ask("08 0100 ffff 0f18") == h("01 08 0100 0a"))
        #expect(t.ask("10 0100 ffff 0328") == h("01 10 0100 10"))  // not a grouping type
        #expect(t.ask("0e 0300 0800") == h("01 0e 0800 02"))
        #expect(t.ask("0e 0300 0500") == h("0f" + nameHex + "c108"))
    }

    /// An attribute that needs encryption answers Insufficient
    /// Authentication (0x05) to reads, writes and prepared writes until the
    /// link is encrypted; a Write Command is dropped.
    @Test func encryptedAttributesWaitForEncryption() {
        let db = GATTDatabase(deviceName: name, aesCMAC: aesCMAC)
        _ = db.addService(BluetoothUUID(high: 0x1111_2222_3333_4444, low: 0x5555_6666_7777_8888))
        let value = db.addCharacteristic(BluetoothUUID(high: 0x1111_2222_3333_4444, low: 0x5555_6666_7777_8889),
                                         properties: [.read, .write, .writeWithoutResponse], permissions: [.read, .write, .encrypted],
                                         value: [0x2A])
        let t = Harness(database: db)
        let h16 = hexString([UInt8(value.value & 0xFF), UInt8(value.value >> 8)])
        #expect(t.ask("0a " + h16) == h("01 0a " + h16 + " 05"))
        #expect(t.ask("12 " + h16 + " 01") == h("01 12 " + h16 + " 05"))
        #expect(t.ask("16 " + h16 + " 0000 01") == h("01 16 " + h16 + " 05"))
        t.deliver("52 " + h16 + " 01")
        #expect(t.sent().isEmpty)
        #expect(t.bearer.server.pollWrite() == nil)
        t.bearer.server.linkEncrypted = true
        #expect(t.ask("0a " + h16) == h("0b 2a"))
        #expect(t.ask("12 " + h16 + " 07") == h("13"))
        #expect(t.bearer.server.pollWrite()?.value == [0x07])
    }

    @Test func readsLongDeviceNameWithBlobs() {
        let long = String(repeating: "N", count: 30)
        let t = Harness(database: GATTDatabase(deviceName: long))
        #expect(t.ask("0a 0300") == h("0b" + String(repeating: "4e", count: 22)))
        #expect(t.ask("0c 0300 1600") == h("0d" + String(repeating: "4e", count: 8)))
        #expect(t.ask("0c 0300 1e00") == h("0d"))                  // offset == length: empty
        #expect(t.ask("0c 0300 1f00") == h("01 0c 0300 07"))      // past the end
        t.bearer.server.database.setDeviceName("Car")
        #expect(t.ask("0a 0300") == h("0b 436172"))
    }

    @Test func writeErrors() {
        let t = Harness()
        #expect(t.ask("12 0300 41") == h("01 12 0300 03"))          // Device Name is read-only
        #expect(t.ask("12 6400 41") == h("01 12 6400 01"))
        #expect(t.ask("12 0000 41") == h("01 12 0000 01"))
        #expect(t.ask("12 0900 020000") == h("01 12 0900 0d"))      // CCCD is two bytes
        #expect(t.ask("12 0900 02") == h("01 12 0900 0d"))
        #expect(t.ask("12 0900 0100") == h("01 12 0900 13"))        // notify on indicate-only
        #expect(t.ask("12 0b00") == h("01 12 0b00 0d"))             // empty features
        #expect(t.ask("12 0b00 01") == h("13"))
        #expect(t.ask("12 0b00 00") == h("01 12 0b00 13"))          // features cannot be cleared
        #expect(t.ask("12 0b00 07") == h("13"))                     // unsupported bits are dropped
        #expect(t.ask("0a 0b00") == h("0b 01"))
        #expect(t.ask("12 0d00 00") == h("01 12 0d00 03"))
    }

    @Test func malformedAndUnsupportedRequests() {
        let t = Harness()
        #expect(t.ask("0a 03") == h("01 0a 0000 04"))
        #expect(t.ask("0a 030000") == h("01 0a 0000 04"))
        #expect(t.ask("04 0100") == h("01 04 0000 04"))
        #expect(t.ask("08 0100 ffff 03") == h("01 08 0000 04"))
        #expect(t.ask("08 0100 ffff 03280000") == h("01 08 0000 04"))  // 32-bit UUID
        #expect(t.ask("10 0100 ffff") == h("01 10 0000 04"))
        #expect(t.ask("12 03") == h("01 12 0000 04"))
        #expect(t.ask("02 17") == h("01 02 0000 04"))
        #expect(t.ask("20 0300 0500") == h("01 20 0000 06"))          // Read Multiple Variable
        #expect(t.ask("18 02") == h("01 18 0000 04"))                  // Execute Write with reserved flags
        #expect(t.ask("3f 00") == h("01 3f 0000 06"))                  // unknown request
        #expect(t.ask("0e 0300") == h("01 0e 0000 04"))                // Read Multiple of one handle
    }

    @Test func commandsAreNeverAnswered() {
        let t = Harness()
        #expect(t.ask("52 0900 0200") == nil)                          // write command applies
        #expect(t.ask("0a 0900") == h("0b 0200"))
        #expect(t.ask("52 0300 41") == nil)                            // not permitted: silently ignored
        #expect(t.ask("52 03") == nil)                                 // malformed
        #expect(t.ask("d2 0900 0100 000102030405060708090a0b") == nil) // signed write: ignored
        #expect(t.ask("0a 0900") == h("0b 0200"))
        #expect(t.ask("7f 0102") == nil)                               // unknown command
        #expect(t.ask("ff") == nil)
    }

    @Test func responsesFromThePhoneToNothingAreDropped() {
        let t = Harness()
        #expect(t.ask("0b 4142") == nil)
        #expect(t.ask("1e") == nil)   // a confirmation with no indication outstanding
    }

    @Test func indicatesServiceChangedAndWaitsForConfirmation() {
        let t = Harness()
        #expect(!t.bearer.indicateServiceChanged())                  // not subscribed
        #expect(t.ask("12 0900 0200") == h("13"))
        #expect(t.bearer.indicateServiceChanged())
        #expect(t.bearer.indicateServiceChanged(AttributeHandleRange(0x0E, 0x20)))
        t.now = Instant(milliseconds: 2_000)
        #expect(t.sent() == [h("1d 0800 0100ffff")])                 // one at a time
        #expect(t.bearer.nextDeadline == Instant(milliseconds: 32_000))
        t.deliver("1e")
        #expect(t.sent() == [h("1d 0800 0e002000")])
        t.deliver("1e")
        #expect(t.bearer.nextDeadline == nil)
    }

    @Test func unconfirmedIndicationTimesOut() {
        let t = Harness()
        _ = t.ask("12 0900 0200")
        #expect(t.events() == [.clientStateChanged], "a CCCD changed: a bonded client's state to store")
        t.bearer.indicateServiceChanged()
        _ = t.sent()
        t.bearer.handleTimeout(now: Instant(milliseconds: 31_000))
        #expect(t.events() == [.transactionTimeout])
        #expect(t.bearer.isClosed)
    }

    @Test func changeUnawareClientGetsDatabaseOutOfSync() {
        let t = Harness()
        t.bearer.server.isChangeAware = false
        // Features are written before robust caching applies.
        #expect(t.ask("12 0b00 01") == h("13"))
        #expect(t.ask("0a 0300") == h("01 0a 0300 12"))
        // Its next request shows it has seen the error.
        #expect(t.ask("0a 0300") == h("0b 4865616420556e6974"))
        // Reading the hash also makes a client change-aware.
        t.bearer.server.isChangeAware = false
        #expect(t.ask("52 0900 0200") == nil)
        #expect(t.ask("08 0100 ffff 2a2b")?.hasPrefix(h("09 12 0d00")) == true)
        #expect(t.ask("0a 0900") == h("0b 0000"))                    // the command was ignored
        // Discovery is never blocked.
        t.bearer.server.isChangeAware = false
        #expect(t.ask("10 0100 ffff 0028") == h("11 06 0100 0500 0018 0600 0d00 0118"))
    }

    @Test func withoutCMACThereIsNoDatabaseHash() {
        let t = Harness(database: GATTDatabase(deviceName: "Head Unit"))
        #expect(t.ask("10 0100 ffff 0028") == h("11 06 0100 0500 0018 0600 0b00 0118"))
        #expect(t.ask("08 0100 ffff 2a2b") == h("01 08 0100 0a"))
        #expect(t.ask("12 0b00 01") == h("13"))
        #expect(t.ask("0a 0b00") == h("0b 00"))                        // robust caching not offered
    }

    @Test func bigMTUResponsesStayWithinIt() {
        let t = Harness()
        _ = t.ask("02 f700")
        let response = bytes(t.ask("04 0100 ffff")!)
        #expect(response.count <= 247)
        #expect(response.count == 2 + 13 * 4)                          // all 13 attributes
    }

    @Test func neverTrapsOnJunkRequests() {
        let t = Harness()
        var seed: UInt32 = 42
        for op in 0...255 {
            for length in 0...24 {
                var pdu: [UInt8] = [UInt8(op)]
                for _ in 0..<length {
                    seed = seed &* 1_664_525 &+ 1_013_904_223
                    pdu.append(UInt8(truncatingIfNeeded: seed >> 24))
                }
                t.bearer.receive(pdu)
                for answer in t.sent() { #expect(answer.count / 2 <= t.bearer.mtu) }
            }
        }
    }
}
