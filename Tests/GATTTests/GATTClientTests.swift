import Testing
import BluetoothCore
@testable import ATT
@testable import GATT

@Suite struct GATTClientTests {
    @Test func exchangesMTU() {
        let t = Harness()
        let box = Box<Int>()
        t.bearer.exchangeMTU(box.completion)
        #expect(t.sent() == [h("02 f700")])
        t.deliver("03 9e00")  // the phone can take 158
        #expect(box.value == 158)
        #expect(t.bearer.mtu == 158)
        #expect(t.events() == [.mtuChanged(158)])
    }

    @Test func mtuNeverGoesBelowDefaultOrAboveOurs() {
        let t = Harness()
        t.bearer.exchangeMTU()
        _ = t.sent()
        t.deliver("03 1000")  // 16 is illegal: keep 23
        #expect(t.bearer.mtu == 23)
        let u = Harness()
        u.bearer.exchangeMTU()
        _ = u.sent()
        u.deliver("03 0f02")
        #expect(u.bearer.mtu == 247)
    }

    @Test func serverWithoutMTUExchangeKeepsDefault() {
        let t = Harness()
        let box = Box<Int>()
        t.bearer.exchangeMTU(box.completion)
        _ = t.sent()
        t.deliver("01 02 0000 06")
        #expect(box.value == 23)
    }

    @Test func discoversServiceByUUID() {
        let t = Harness()
        let box = Box<[GATTService]>()
        t.bearer.discoverPrimaryServices(uuid: nnService, box.completion)
        #expect(t.sent() == [h("06 0100 ffff 0028" + le(nnService))])
        t.deliver("07 2800 3000")
        #expect(t.sent() == [h("06 3100 ffff 0028" + le(nnService))])
        t.deliver("01 06 3100 0a")
        #expect(box.value == [GATTService(uuid: nnService, handles: AttributeHandleRange(0x28, 0x30))])
    }

    @Test func discoversServiceBy16BitUUID() {
        let t = Harness()
        let box = Box<[GATTService]>()
        t.bearer.discoverPrimaryServices(uuid: BluetoothUUID(0x1805), box.completion)
        #expect(t.sent() == [h("06 0100 ffff 0028 0518")])
        t.deliver("07 4000 ffff")  // the group runs to the end: done without another request
        #expect(t.sent().isEmpty)
        #expect(box.value == [GATTService(uuid: BluetoothUUID(0x1805), handles: AttributeHandleRange(0x40, 0xFFFF))])
    }

    @Test func serviceNotFound() {
        let t = Harness()
        let box = Box<[GATTService]>()
        t.bearer.discoverPrimaryServices(uuid: nnService, box.completion)
        _ = t.sent()
        t.deliver("01 06 0100 0a")
        #expect(box.value == [])
    }

    @Test func discoversAllPrimaryServicesWith16And128BitUUIDs() {
        let t = Harness()
        let box = Box<[GATTService]>()
        t.bearer.discoverAllPrimaryServices(box.completion)
        #expect(t.sent() == [h("10 0100 ffff 0028")])
        t.deliver("11 06 0100 0500 0018 0600 0900 0118")
        #expect(t.sent() == [h("10 0a00 ffff 0028")])
        t.deliver("11 14 2800 3000" + le(nnService))
        #expect(t.sent() == [h("10 3100 ffff 0028")])
        t.deliver("01 10 3100 0a")
        #expect(box.value == [
            GATTService(uuid: BluetoothUUID(0x1800), handles: AttributeHandleRange(1, 5)),
            GATTService(uuid: BluetoothUUID(0x1801), handles: AttributeHandleRange(6, 9)),
            GATTService(uuid: nnService, handles: AttributeHandleRange(0x28, 0x30)),
        ])
    }

    @Test func discoversCharacteristicsAndTheirEnds() {
        let t = Harness()
        let box = Box<[GATTCharacteristic]>()
        t.bearer.discoverCharacteristics(of: GATTService(uuid: nnService, handles: AttributeHandleRange(0x28, 0x30)), box.completion)
        #expect(t.sent() == [h("08 2800 3000 0328")])
        // SERVER NAME: read, value 0x2A.
        t.deliver("09 15 2900 02 2a00" + le(serverNameUUID))
        #expect(t.sent() == [h("08 2a00 3000 0328")])
        // PAIRED CLIENT NAME: read, write, notify, value 0x2C.
        t.deliver("09 15 2b00 1a 2c00" + le(pairedClientNameUUID))
        #expect(t.sent() == [h("08 2c00 3000 0328")])
        t.deliver("01 08 2c00 0a")
        #expect(box.value == [
            GATTCharacteristic(uuid: serverNameUUID, declarationHandle: AttributeHandle(0x29), valueHandle: AttributeHandle(0x2A),
                               properties: .read, endHandle: AttributeHandle(0x2A)),
            GATTCharacteristic(uuid: pairedClientNameUUID, declarationHandle: AttributeHandle(0x2B), valueHandle: AttributeHandle(0x2C),
                               properties: [.read, .write, .notify], endHandle: AttributeHandle(0x30)),
        ])
    }

    /// Found by fuzzing (Fuzz/corpus/gatt-service-binding/crash-value-handle-zero):
    /// a value handle of 0, before its declaration or past the service
    /// would aim reads and CCCD writes at the wrong attribute.
    @Test(arguments: ["0000", "2900", "3100"])
    func aCharacteristicValueOutsideItsPlaceIsMalformed(valueHandle: String) {
        let t = Harness()
        let box = Box<[GATTCharacteristic]>()
        t.bearer.discoverCharacteristics(of: GATTService(uuid: nnService, handles: AttributeHandleRange(0x28, 0x30)), box.completion)
        _ = t.sent()
        t.deliver("09 15 2900 02" + valueHandle + le(serverNameUUID))
        #expect(box.error == .malformedResponse(.readByTypeResponse))
    }

    @Test func discoversDescriptors() {
        let t = Harness()
        let characteristic = GATTCharacteristic(uuid: pairedClientNameUUID, declarationHandle: AttributeHandle(0x2B),
                                                valueHandle: AttributeHandle(0x2C), properties: [.read, .notify], endHandle: AttributeHandle(0x30))
        let box = Box<[GATTDescriptor]>()
        t.bearer.discoverDescriptors(of: characteristic, box.completion)
        #expect(t.sent() == [h("04 2d00 3000")])
        t.deliver("05 01 2d00 0229 2e00 0129")
        #expect(t.sent() == [h("04 2f00 3000")])
        t.deliver("01 04 2f00 0a")
        #expect(box.value == [
            GATTDescriptor(uuid: BluetoothUUID(0x2902), handle: AttributeHandle(0x2D)),
            GATTDescriptor(uuid: BluetoothUUID(0x2901), handle: AttributeHandle(0x2E)),
        ])
    }

    @Test func characteristicWithoutRoomForDescriptors() {
        let t = Harness()
        let characteristic = GATTCharacteristic(uuid: serverNameUUID, declarationHandle: AttributeHandle(0x29),
                                                valueHandle: AttributeHandle(0x2A), properties: .read, endHandle: AttributeHandle(0x2A))
        let box = Box<[GATTDescriptor]>()
        t.bearer.discoverDescriptors(of: characteristic, box.completion)
        #expect(box.value == [])
        #expect(t.sent().isEmpty)
    }

    @Test func readsLongValueWithBlobs() {
        let t = Harness()  // MTU 23: a full response carries 22 bytes
        let value = (0..<49).map { UInt8($0) }
        let box = Box<[UInt8]>()
        t.bearer.read(AttributeHandle(0x2A), box.completion)
        #expect(t.sent() == [h("0a 2a00")])
        t.deliver("0b" + hexString(value[0..<22]))
        #expect(t.sent() == [h("0c 2a00 1600")])
        t.deliver("0d" + hexString(value[22..<44]))
        #expect(t.sent() == [h("0c 2a00 2c00")])
        t.deliver("0d" + hexString(value[44...]))
        #expect(t.sent().isEmpty)
        #expect(box.value == value)
    }

    @Test func longReadEndsOnAttributeNotLong() {
        let t = Harness()
        let box = Box<[UInt8]>()
        t.bearer.read(AttributeHandle(0x2A), box.completion)
        _ = t.sent()
        t.deliver("0b" + String(repeating: "41", count: 22))
        #expect(t.sent() == [h("0c 2a00 1600")])
        t.deliver("01 0c 2a00 0b")
        #expect(box.value == [UInt8](repeating: 0x41, count: 22))
    }

    @Test func readStopsAt512Bytes() {
        let t = Harness()
        let box = Box<[UInt8]>()
        t.bearer.read(AttributeHandle(0x2A), box.completion)
        _ = t.sent()
        t.deliver("0b" + String(repeating: "00", count: 22))
        var rounds = 0
        while box.result == nil && rounds < 100 {
            _ = t.sent()
            t.deliver("0d" + String(repeating: "00", count: 22))
            rounds += 1
        }
        #expect(box.value?.count == 528)  // 24 full PDUs: the first at or over 512 ends it
        #expect(rounds == 23)
    }

    @Test func shortReadIsOneRequest() {
        let t = Harness()
        let box = Box<[UInt8]>()
        t.bearer.read(AttributeHandle(0x2C), box.completion)
        #expect(t.sent() == [h("0a 2c00")])
        t.deliver("0b 554e504149524544")
        #expect(box.value == Array("UNPAIRED".utf8))
        #expect(t.bearer.pendingRequestCount == 0)
    }

    @Test func writesWithResponse() {
        let t = Harness()
        let box = Box<Void>()
        t.bearer.write(AttributeHandle(0x2C), value: Array("HU-3F9A21".utf8), box.completion)
        #expect(t.sent() == [h("12 2c00 48552d334639413231")])
        t.deliver("13")
        #expect(box.value != nil)
    }

    @Test(arguments: [
        ("01 12 2c00 80", ATTErrorCode.application(0x80)),
        ("01 12 2c00 0d", ATTErrorCode.invalidAttributeValueLength),
        ("01 12 2c00 05", ATTErrorCode.insufficientAuthentication),
        ("01 12 2c00 0f", ATTErrorCode.insufficientEncryption),
        ("01 12 2c00 03", ATTErrorCode.writeNotPermitted),
    ])
    func errorResponsesMapToTypedErrors(response: String, code: ATTErrorCode) {
        let t = Harness()
        let box = Box<Void>()
        t.bearer.write(AttributeHandle(0x2C), value: [0x41], box.completion)
        _ = t.sent()
        t.deliver(response)
        #expect(box.error == .att(code, handle: AttributeHandle(0x2C)))
        #expect(box.error?.attErrorCode == code)
    }

    @Test func writeCommandsGoOutInOrderWithoutWaiting() {
        let t = Harness()
        let read = Box<[UInt8]>()
        let command = Box<Void>()
        t.bearer.writeWithoutResponse(AttributeHandle(0x30), value: [0x01], command.completion)
        t.bearer.read(AttributeHandle(0x2A), read.completion)
        #expect(t.sent() == [h("52 3000 01"), h("0a 2a00")])
        #expect(command.value != nil)
        let tooLong = Box<Void>()
        t.bearer.writeWithoutResponse(AttributeHandle(0x30), value: [UInt8](repeating: 0, count: 21), tooLong.completion)
        #expect(tooLong.calls == 0)  // waits its turn behind the read
        t.deliver("0b 00")
        #expect(tooLong.error == .valueTooLong)
    }

    @Test func subscribesAndReceivesNotifications() {
        let t = Harness()
        var values: [[UInt8]] = []
        let box = Box<Void>()
        t.bearer.subscribe(valueHandle: AttributeHandle(0x2C), cccd: AttributeHandle(0x2D), onValue: { values.append($0) }, box.completion)
        #expect(t.sent() == [h("12 2d00 0100")])
        t.deliver("13")
        #expect(box.value != nil)
        t.deliver("1b 2c00 554e504149524544")
        #expect(values == [Array("UNPAIRED".utf8)])
        #expect(t.sent().isEmpty)  // notifications are not confirmed

        var unhandled: [AttributeHandle] = []
        t.bearer.onUnhandledValue = { handle, _, _ in unhandled.append(handle) }
        let off = Box<Void>()
        t.bearer.unsubscribe(valueHandle: AttributeHandle(0x2C), cccd: AttributeHandle(0x2D), off.completion)
        #expect(t.sent() == [h("12 2d00 0000")])
        t.deliver("1b 2c00 41")
        t.deliver("13")
        #expect(off.value != nil)
        #expect(values.count == 1)
        #expect(unhandled == [AttributeHandle(0x2C)])
    }

    @Test func failedSubscriptionRemovesHandler() {
        let t = Harness()
        var values = 0
        let box = Box<Void>()
        t.bearer.subscribe(valueHandle: AttributeHandle(0x10), cccd: AttributeHandle(0x11), onValue: { _ in values += 1 }, box.completion)
        _ = t.sent()
        t.deliver("01 12 1100 05")
        #expect(box.error == .att(.insufficientAuthentication, handle: AttributeHandle(0x11)))
        t.deliver("1b 1000 01")
        #expect(values == 0)
    }

    @Test func confirmsIndications() {
        let t = Harness()
        var values: [[UInt8]] = []
        t.bearer.subscribe(valueHandle: AttributeHandle(0x03), cccd: AttributeHandle(0x04), indications: true,
                           onValue: { values.append($0) }, { _ in })
        #expect(t.sent() == [h("12 0400 0200")])
        t.deliver("13")
        // Service Changed from the phone: handles 0x0001...0xFFFF.
        t.deliver("1d 0300 0100ffff")
        #expect(t.sent() == [h("1e")])
        #expect(values == [bytes("0100ffff")])
        // Even without a handler an indication is confirmed.
        t.deliver("1d 0900 00")
        #expect(t.sent() == [h("1e")])
    }

    @Test func queuesRequestsOneAtATime() {
        let t = Harness()
        var order: [String] = []
        t.bearer.read(AttributeHandle(1)) { _ in order.append("read 1") }
        t.bearer.write(AttributeHandle(2), value: [0x02]) { _ in order.append("write 2") }
        t.bearer.read(AttributeHandle(3)) { _ in order.append("read 3") }
        #expect(t.bearer.pendingRequestCount == 3)
        #expect(t.sent() == [h("0a 0100")])
        t.deliver("0b 01")
        #expect(t.sent() == [h("12 0200 02")])
        t.deliver("01 12 0200 03")
        #expect(t.sent() == [h("0a 0300")])
        t.deliver("0b 03")
        #expect(order == ["read 1", "write 2", "read 3"])
        #expect(t.bearer.pendingRequestCount == 0)
    }

    @Test func completionMayQueueTheNextRequest() {
        let t = Harness()
        let second = Box<[UInt8]>()
        t.bearer.read(AttributeHandle(1)) { _ in t.bearer.read(AttributeHandle(2), second.completion) }
        _ = t.sent()
        t.deliver("0b 01")
        #expect(t.sent() == [h("0a 0200")])
        t.deliver("0b 02")
        #expect(second.value == [0x02])
    }

    @Test func malformedOrUnexpectedResponsesFailOnlyThatRequest() {
        let t = Harness()
        let first = Box<[GATTCharacteristic]>()
        let second = Box<[UInt8]>()
        let third = Box<[UInt8]>()
        let fourth = Box<Void>()
        t.bearer.discoverCharacteristics(in: AttributeHandleRange(0x28, 0x30), first.completion)
        t.bearer.read(AttributeHandle(0x2A), second.completion)
        t.bearer.read(AttributeHandle(0x2A), third.completion)
        t.bearer.write(AttributeHandle(0x2C), value: [1], fourth.completion)
        _ = t.sent()
        t.deliver("09 07 2900 02 2a")               // entries do not divide the PDU
        #expect(first.error == .malformedResponse(.readByTypeResponse))
        #expect(t.sent() == [h("0a 2a00")])
        t.deliver("13")                              // a Write Rsp to a Read Req
        #expect(second.error == .unexpectedResponse(.writeResponse))
        #expect(t.sent() == [h("0a 2a00")])
        t.deliver("01 0c 2a00 0a")                   // an error for a request we did not send
        #expect(third.error == .unexpectedResponse(.errorResponse))
        #expect(t.sent() == [h("12 2c00 01")])
        t.deliver("13")
        #expect(fourth.value != nil)
        t.deliver("0b 00")                           // nothing outstanding: dropped
        #expect(t.sent().isEmpty)
    }

    @Test func discoveryRejectsHandlesGoingBackwards() {
        let t = Harness()
        let box = Box<[GATTService]>()
        t.bearer.discoverAllPrimaryServices(box.completion)
        _ = t.sent()
        t.deliver("11 06 0500 0900 0018")
        _ = t.sent()
        t.deliver("11 06 0100 0400 0118")          // before the cursor: would loop forever
        #expect(box.error == .malformedResponse(.readByGroupTypeResponse))
        #expect(t.sent().isEmpty)
    }

    @Test func transactionTimeoutEndsTheBearer() {
        let t = Harness()
        let first = Box<[UInt8]>()
        let second = Box<Void>()
        t.bearer.read(AttributeHandle(0x2A), first.completion)
        t.bearer.write(AttributeHandle(0x2C), value: [1], second.completion)
        #expect(t.bearer.nextDeadline == nil)        // the timer starts when the request leaves
        t.now = Instant(milliseconds: 5_000)
        _ = t.sent()
        #expect(t.bearer.nextDeadline == Instant(milliseconds: 35_000))
        t.bearer.handleTimeout(now: Instant(milliseconds: 34_999))
        #expect(first.result == nil)
        t.bearer.handleTimeout(now: Instant(milliseconds: 35_000))
        #expect(first.error == .timeout)
        #expect(second.error == .timeout)
        #expect(t.events() == [.transactionTimeout])
        #expect(t.bearer.isClosed)
        #expect(t.bearer.nextDeadline == nil)
        // No more requests, and nothing sent.
        let third = Box<[UInt8]>()
        t.bearer.read(AttributeHandle(1), third.completion)
        #expect(third.error == .bearerClosed)
        t.deliver("0b 00")
        t.deliver("0a 0100")
        #expect(t.sent().isEmpty)
    }

    @Test func closeFailsPendingRequests() {
        let t = Harness()
        let first = Box<[UInt8]>()
        let second = Box<[UInt8]>()
        t.bearer.read(AttributeHandle(1), first.completion)
        t.bearer.read(AttributeHandle(2), second.completion)
        _ = t.sent()
        t.bearer.close()
        #expect(first.error == .bearerClosed)
        #expect(second.error == .bearerClosed)
        #expect(first.calls == 1)
        #expect(t.events().isEmpty)
    }

    @Test func serverRequestsInterleaveWithClientRequests() {
        let t = Harness()
        let box = Box<[UInt8]>()
        t.bearer.read(AttributeHandle(0x2A), box.completion)
        #expect(t.sent() == [h("0a 2a00")])
        // The phone discovers us while our read is outstanding.
        #expect(t.ask("10 0100 ffff 0028") == h("11 06 0100 0500 0018 0600 0d00 0118"))
        t.deliver("0b 41")
        #expect(box.value == [0x41])
    }

    @Test func malformedNotificationsAreDropped() {
        let t = Harness()
        var calls = 0
        t.bearer.onUnhandledValue = { _, _, _ in calls += 1 }
        t.deliver("1b 03")
        t.deliver("1d")
        t.deliver("")
        #expect(calls == 0)
        #expect(t.sent().isEmpty)
    }

    @Test func invalidRangesAreRefusedLocally() {
        let t = Harness()
        let box = Box<[GATTCharacteristic]>()
        t.bearer.discoverCharacteristics(in: AttributeHandleRange(0x30, 0x28), box.completion)
        #expect(box.error == .invalidArgument)
        #expect(t.sent().isEmpty)
    }
}
