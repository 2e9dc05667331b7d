import Testing
import BluetoothCore
@testable import ATT
@testable import GATT

@Suite struct GATTClientTests {
    @Test func exchangesMTU() {
        let t = Harness()
        let box = t.track(t.bearer.exchangeMTU())
        #expect(t.sent() == [h("02 f700")])
        t.deliver("03 9e00")  // the phone can take 158
        #expect(box.mtu == 158)
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
        let box = t.track(t.bearer.exchangeMTU())
        _ = t.sent()
        t.deliver("01 02 0000 06")
        #expect(box.mtu == 23)
    }

    @Test func discoversServiceByUUID() {
        let t = Harness()
        let box = t.track(t.bearer.discoverPrimaryServices(uuid: nnService))
        #expect(t.sent() == [h("06 0100 ffff 0028" + le(nnService))])
        t.deliver("07 2800 3000")
        #expect(t.sent() == [h("06 3100 ffff 0028" + le(nnService))])
        t.deliver("01 06 3100 0a")
        #expect(box.services == [GATTService(uuid: nnService, handles: AttributeHandleRange(0x28, 0x30))])
    }

    @Test func discoversServiceBy16BitUUID() {
        let t = Harness()
        let box = t.track(t.bearer.discoverPrimaryServices(uuid: BluetoothUUID(0x1805)))
        #expect(t.sent() == [h("06 0100 ffff 0028 0518")])
        t.deliver("07 4000 ffff")  // the group runs to the end: done without another request
        #expect(t.sent().isEmpty)
        #expect(box.services == [GATTService(uuid: BluetoothUUID(0x1805), handles: AttributeHandleRange(0x40, 0xFFFF))])
    }

    @Test func serviceNotFound() {
        let t = Harness()
        let box = t.track(t.bearer.discoverPrimaryServices(uuid: nnService))
        _ = t.sent()
        t.deliver("01 06 0100 0a")
        #expect(box.services == [])
    }

    @Test func discoversAllPrimaryServicesWith16And128BitUUIDs() {
        let t = Harness()
        let box = t.track(t.bearer.discoverAllPrimaryServices())
        #expect(t.sent() == [h("10 0100 ffff 0028")])
        t.deliver("11 06 0100 0500 0018 0600 0900 0118")
        #expect(t.sent() == [h("10 0a00 ffff 0028")])
        t.deliver("11 14 2800 3000" + le(nnService))
        #expect(t.sent() == [h("10 3100 ffff 0028")])
        t.deliver("01 10 3100 0a")
        #expect(box.services == [
            GATTService(uuid: BluetoothUUID(0x1800), handles: AttributeHandleRange(1, 5)),
            GATTService(uuid: BluetoothUUID(0x1801), handles: AttributeHandleRange(6, 9)),
            GATTService(uuid: nnService, handles: AttributeHandleRange(0x28, 0x30)),
        ])
    }

    @Test func discoversCharacteristicsAndTheirEnds() {
        let t = Harness()
        let box = t.track(t.bearer.discoverCharacteristics(of: GATTService(uuid: nnService, handles: AttributeHandleRange(0x28, 0x30))))
        #expect(t.sent() == [h("08 2800 3000 0328")])
        // SERVER NAME: read, value 0x2A.
        t.deliver("09 15 2900 02 2a00" + le(serverNameUUID))
        #expect(t.sent() == [h("08 2a00 3000 0328")])
        // PAIRED CLIENT NAME: read, write, notify, value 0x2C.
        t.deliver("09 15 2b00 1a 2c00" + le(pairedClientNameUUID))
        #expect(t.sent() == [h("08 2c00 3000 0328")])
        t.deliver("01 08 2c00 0a")
        #expect(box.characteristics == [
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
        let box = t.track(t.bearer.discoverCharacteristics(of: GATTService(uuid: nnService, handles: AttributeHandleRange(0x28, 0x30))))
        _ = t.sent()
        t.deliver("09 15 2900 02" + valueHandle + le(serverNameUUID))
        #expect(box.error == .malformedResponse(.readByTypeResponse))
    }

    @Test func discoversDescriptors() {
        let t = Harness()
        let characteristic = GATTCharacteristic(uuid: pairedClientNameUUID, declarationHandle: AttributeHandle(0x2B),
                                                valueHandle: AttributeHandle(0x2C), properties: [.read, .notify], endHandle: AttributeHandle(0x30))
        let box = t.track(t.bearer.discoverDescriptors(of: characteristic))
        #expect(t.sent() == [h("04 2d00 3000")])
        t.deliver("05 01 2d00 0229 2e00 0129")
        #expect(t.sent() == [h("04 2f00 3000")])
        t.deliver("01 04 2f00 0a")
        #expect(box.descriptors == [
            GATTDescriptor(uuid: BluetoothUUID(0x2902), handle: AttributeHandle(0x2D)),
            GATTDescriptor(uuid: BluetoothUUID(0x2901), handle: AttributeHandle(0x2E)),
        ])
    }

    @Test func characteristicWithoutRoomForDescriptors() {
        let t = Harness()
        let characteristic = GATTCharacteristic(uuid: serverNameUUID, declarationHandle: AttributeHandle(0x29),
                                                valueHandle: AttributeHandle(0x2A), properties: .read, endHandle: AttributeHandle(0x2A))
        let box = t.track(t.bearer.discoverDescriptors(of: characteristic))
        #expect(box.descriptors == [])
        #expect(t.sent().isEmpty)
    }

    @Test func readsLongValueWithBlobs() {
        let t = Harness()  // MTU 23: a full response carries 22 bytes
        let value = (0..<49).map { UInt8($0) }
        let box = t.track(t.bearer.read(AttributeHandle(0x2A)))
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
        let box = t.track(t.bearer.read(AttributeHandle(0x2A)))
        _ = t.sent()
        t.deliver("0b" + String(repeating: "41", count: 22))
        #expect(t.sent() == [h("0c 2a00 1600")])
        t.deliver("01 0c 2a00 0b")
        #expect(box.value == [UInt8](repeating: 0x41, count: 22))
    }

    @Test func readStopsAt512Bytes() {
        let t = Harness()
        let box = t.track(t.bearer.read(AttributeHandle(0x2A)))
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
        let box = t.track(t.bearer.read(AttributeHandle(0x2C)))
        #expect(t.sent() == [h("0a 2c00")])
        t.deliver("0b 554e504149524544")
        #expect(box.value == Array("UNPAIRED".utf8))
        #expect(t.bearer.pendingRequestCount == 0)
    }

    @Test func writesWithResponse() {
        let t = Harness()
        let box = t.track(t.bearer.write(AttributeHandle(0x2C), value: Array("HU-3F9A21".utf8)))
        #expect(t.sent() == [h("12 2c00 48552d334639413231")])
        t.deliver("13")
        #expect(box.succeeded)
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
        let box = t.track(t.bearer.write(AttributeHandle(0x2C), value: [0x41]))
        _ = t.sent()
        t.deliver(response)
        #expect(box.error == .att(code, handle: AttributeHandle(0x2C)))
        #expect(box.error?.attErrorCode == code)
    }

    @Test func writeCommandsGoOutInOrderWithoutWaiting() {
        let t = Harness()
        let command = t.track(t.bearer.writeWithoutResponse(AttributeHandle(0x30), value: [0x01]))
        let read = t.track(t.bearer.read(AttributeHandle(0x2A)))
        #expect(t.sent() == [h("52 3000 01"), h("0a 2a00")])
        #expect(command.succeeded)
        let tooLong = t.track(t.bearer.writeWithoutResponse(AttributeHandle(0x30), value: [UInt8](repeating: 0, count: 21)))
        #expect(tooLong.calls == 0)  // waits its turn behind the read
        t.deliver("0b 00")
        #expect(read.value == [0x00])
        #expect(tooLong.error == .valueTooLong)
    }

    @Test func subscribesAndReceivesNotifications() {
        let t = Harness()
        let box = t.track(t.bearer.subscribe(cccd: AttributeHandle(0x2D)))
        #expect(t.sent() == [h("12 2d00 0100")])
        t.deliver("13")
        #expect(box.succeeded)
        t.deliver("1b 2c00 554e504149524544")
        #expect(t.values(at: AttributeHandle(0x2C)) == [Array("UNPAIRED".utf8)])
        #expect(t.sent().isEmpty)  // notifications are not confirmed

        let off = t.track(t.bearer.unsubscribe(cccd: AttributeHandle(0x2D)))
        #expect(t.sent() == [h("12 2d00 0000")])
        t.deliver("1b 2c00 41")
        t.deliver("13")
        #expect(off.succeeded)
        // Values keep coming out as they arrive: routing them is the owner's.
        #expect(t.allValues.map { $0.0 } == [AttributeHandle(0x2C), AttributeHandle(0x2C)])
        #expect(t.allValues.map { $0.2 } == [false, false])
    }

    @Test func aValueArrivesInItsPlaceAmongCompletions() {
        let t = Harness()
        let read = t.track(t.bearer.read(AttributeHandle(0x2A)))
        _ = t.sent()
        t.deliver("1b 2c00 41")
        t.deliver("0b 42")
        t.deliver("1b 2c00 43")
        #expect(t.log == [.valueReceived(AttributeHandle(0x2C), [0x41], isIndication: false),
                          .completed(read.id, .value([0x42])),
                          .valueReceived(AttributeHandle(0x2C), [0x43], isIndication: false)])
    }

    @Test func failedSubscriptionReportsTheError() {
        let t = Harness()
        let box = t.track(t.bearer.subscribe(cccd: AttributeHandle(0x11)))
        _ = t.sent()
        t.deliver("01 12 1100 05")
        #expect(box.error == .att(.insufficientAuthentication, handle: AttributeHandle(0x11)))
    }

    @Test func confirmsIndications() {
        let t = Harness()
        _ = t.bearer.subscribe(cccd: AttributeHandle(0x04), indications: true)
        #expect(t.sent() == [h("12 0400 0200")])
        t.deliver("13")
        // Service Changed from the phone: handles 0x0001...0xFFFF.
        t.deliver("1d 0300 0100ffff")
        #expect(t.sent() == [h("1e")])
        #expect(t.values(at: AttributeHandle(0x03)) == [bytes("0100ffff")])
        #expect(t.allValues.map { $0.2 } == [true])
        // Even without a subscription an indication is confirmed.
        t.deliver("1d 0900 00")
        #expect(t.sent() == [h("1e")])
    }

    @Test func queuesRequestsOneAtATime() {
        let t = Harness()
        let first = t.bearer.read(AttributeHandle(1))
        let second = t.bearer.write(AttributeHandle(2), value: [0x02])
        let third = t.bearer.read(AttributeHandle(3))
        #expect(Set([first, second, third]).count == 3)
        #expect(t.bearer.pendingRequestCount == 3)
        #expect(t.sent() == [h("0a 0100")])
        t.deliver("0b 01")
        #expect(t.sent() == [h("12 0200 02")])
        t.deliver("01 12 0200 03")
        #expect(t.sent() == [h("0a 0300")])
        t.deliver("0b 03")
        #expect(t.completed.map { $0.0 } == [first, second, third])
        #expect(t.bearer.pendingRequestCount == 0)
    }

    @Test func aRequestQueuedOnACompletionGoesNext() {
        let t = Harness()
        let first = t.track(t.bearer.read(AttributeHandle(1)))
        _ = t.sent()
        t.deliver("0b 01")
        #expect(first.value == [0x01])
        let second = t.track(t.bearer.read(AttributeHandle(2)))
        #expect(t.sent() == [h("0a 0200")])
        t.deliver("0b 02")
        #expect(second.value == [0x02])
    }

    @Test func malformedOrUnexpectedResponsesFailOnlyThatRequest() {
        let t = Harness()
        let first = t.track(t.bearer.discoverCharacteristics(in: AttributeHandleRange(0x28, 0x30)))
        let second = t.track(t.bearer.read(AttributeHandle(0x2A)))
        let third = t.track(t.bearer.read(AttributeHandle(0x2A)))
        let fourth = t.track(t.bearer.write(AttributeHandle(0x2C), value: [1]))
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
        #expect(fourth.succeeded)
        t.deliver("0b 00")                           // nothing outstanding: dropped
        #expect(t.sent().isEmpty)
    }

    @Test func discoveryRejectsHandlesGoingBackwards() {
        let t = Harness()
        let box = t.track(t.bearer.discoverAllPrimaryServices())
        _ = t.sent()
        t.deliver("11 06 0500 0900 0018")
        _ = t.sent()
        t.deliver("11 06 0100 0400 0118")          // before the cursor: would loop forever
        #expect(box.error == .malformedResponse(.readByGroupTypeResponse))
        #expect(t.sent().isEmpty)
    }

    @Test func transactionTimeoutEndsTheBearer() {
        let t = Harness()
        let first = t.track(t.bearer.read(AttributeHandle(0x2A)))
        let second = t.track(t.bearer.write(AttributeHandle(0x2C), value: [1]))
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
        let third = t.track(t.bearer.read(AttributeHandle(1)))
        #expect(third.error == .bearerClosed)
        t.deliver("0b 00")
        t.deliver("0a 0100")
        #expect(t.sent().isEmpty)
    }

    @Test func closeFailsPendingRequests() {
        let t = Harness()
        let first = t.track(t.bearer.read(AttributeHandle(1)))
        let second = t.track(t.bearer.read(AttributeHandle(2)))
        _ = t.sent()
        t.bearer.close()
        #expect(first.error == .bearerClosed)
        #expect(second.error == .bearerClosed)
        #expect(first.calls == 1)
        #expect(t.events().isEmpty)
    }

    @Test func serverRequestsInterleaveWithClientRequests() {
        let t = Harness()
        let box = t.track(t.bearer.read(AttributeHandle(0x2A)))
        #expect(t.sent() == [h("0a 2a00")])
        // The phone discovers us while our read is outstanding.
        #expect(t.ask("10 0100 ffff 0028") == h("11 06 0100 0500 0018 0600 0d00 0118"))
        t.deliver("0b 41")
        #expect(box.value == [0x41])
    }

    @Test func malformedNotificationsAreDropped() {
        let t = Harness()
        t.deliver("1b 03")
        t.deliver("1d")
        t.deliver("")
        #expect(t.allValues.isEmpty)
        #expect(t.sent().isEmpty)
    }

    @Test func invalidRangesAreRefusedLocally() {
        let t = Harness()
        let box = t.track(t.bearer.discoverCharacteristics(in: AttributeHandleRange(0x30, 0x28)))
        #expect(box.error == .invalidArgument)
        #expect(t.sent().isEmpty)
    }
}
