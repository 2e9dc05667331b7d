import Testing
import BluetoothCore
@testable import ATT
@testable import GATT

/// A NavigationNotifier service as a phone shows it, answered PDU by PDU:
/// SERVER NAME (read) at 0x2A and PAIRED CLIENT NAME (read, write, notify)
/// at 0x2C with its CCCD at 0x2D, in the group 0x28-0x30. `shift` moves
/// every handle, as a phone whose database changed would.
struct ScriptedNNServer {
    var shift: UInt16 = 0

    func hx(_ handle: UInt16) -> String {
        let v = handle + shift
        return hexString([UInt8(v & 0xFF), UInt8(v >> 8)])
    }

    /// Answers the whole discovery walk the binding makes, checking each request.
    func answerDiscovery(_ t: Harness) {
        #expect(t.sent() == [h("06 0100 ffff 0028" + le(nnService))])
        t.deliver("07" + hx(0x28) + hx(0x30))
        #expect(t.sent() == [h("06" + hx(0x31) + "ffff 0028" + le(nnService))])
        t.deliver("01 06" + hx(0x31) + "0a")
        #expect(t.sent() == [h("08" + hx(0x28) + hx(0x30) + "0328")])
        t.deliver("09 15" + hx(0x29) + "02" + hx(0x2A) + le(serverNameUUID))
        #expect(t.sent() == [h("08" + hx(0x2A) + hx(0x30) + "0328")])
        t.deliver("09 15" + hx(0x2B) + "1a" + hx(0x2C) + le(pairedClientNameUUID))
        #expect(t.sent() == [h("08" + hx(0x2C) + hx(0x30) + "0328")])
        t.deliver("01 08" + hx(0x2C) + "0a")
        // Only PAIRED CLIENT NAME notifies: its descriptors are looked for.
        #expect(t.sent() == [h("04" + hx(0x2D) + hx(0x30))])
        t.deliver("05 01" + hx(0x2D) + "0229")
        #expect(t.sent() == [h("04" + hx(0x2E) + hx(0x30))])
        t.deliver("01 04" + hx(0x2E) + "0a")
    }
}

/// Collects the results of binding operations.
final class Results {
    var all: [RemoteOperationResult] = []
    var done: (RemoteOperationResult) -> Void { { self.all.append($0) } }
}

@Suite struct GATTServiceBindingTests {
    let server = ScriptedNNServer()

    @Test func discoversOnceThenReadsByUUID() {
        let t = Harness()
        let binding = GATTServiceBinding(service: nnService, bearer: t.bearer)
        let results = Results()
        binding.read(serverNameUUID, results.done)
        server.answerDiscovery(t)
        #expect(binding.characteristics?[serverNameUUID] ==
                GATTCharacteristicHandles(value: AttributeHandle(0x2A), cccd: nil, properties: .read))
        #expect(binding.characteristics?[pairedClientNameUUID] ==
                GATTCharacteristicHandles(value: AttributeHandle(0x2C), cccd: AttributeHandle(0x2D), properties: [.read, .write, .notify]))
        #expect(t.sent() == [h("0a 2a00")])
        t.deliver("0b 4950484f4e45")
        #expect(results.all == [.value(Array("IPHONE".utf8))])
        // The second read goes straight to the handle.
        binding.read(pairedClientNameUUID, results.done)
        #expect(t.sent() == [h("0a 2c00")])
        t.deliver("0b 2d")
        #expect(results.all.last == .value([0x2D]))
    }

    @Test func operationsAskedTogetherShareOneDiscovery() {
        let t = Harness()
        let binding = GATTServiceBinding(service: nnService, bearer: t.bearer)
        let results = Results()
        let found = Box<Int>()
        var discovery: GATTServiceDiscovery?
        binding.read(serverNameUUID, results.done)
        binding.write(pairedClientNameUUID, value: Array("HU".utf8), results.done)
        binding.discover { discovery = $0; found.calls += 1 }
        server.answerDiscovery(t)
        #expect(discovery == .found([serverNameUUID, pairedClientNameUUID]))
        #expect(found.calls == 1)
        #expect(t.sent() == [h("0a 2a00")])
        t.deliver("0b 41")
        #expect(t.sent() == [h("12 2c00 4855")])
        t.deliver("13")
        #expect(results.all == [.value([0x41]), .done])
        // Reads and writes keep using the handles found ...
        binding.read(serverNameUUID, results.done)
        #expect(t.sent() == [h("0a 2a00")])
        t.deliver("0b 42")
        // ... while discover, asked again, looks at the phone again.
        binding.discover { discovery = $0; found.calls += 1 }
        ScriptedNNServer(shift: 0x10).answerDiscovery(t)
        #expect(found.calls == 2)
        binding.read(serverNameUUID, results.done)
        #expect(t.sent() == [h("0a 3a00")])
    }

    @Test func subscribeWritesTheCCCDAndRoutesNotifications() {
        let t = Harness()
        let binding = GATTServiceBinding(service: nnService, bearer: t.bearer)
        let results = Results()
        var values: [[UInt8]] = []
        binding.subscribe(pairedClientNameUUID, onValue: { values.append($0) }, results.done)
        server.answerDiscovery(t)
        #expect(t.sent() == [h("12 2d00 0100")])
        t.deliver("13")
        #expect(results.all == [.done])
        t.deliver("1b 2c00 554e504149524544")
        #expect(values == [Array("UNPAIRED".utf8)])

        binding.unsubscribe(pairedClientNameUUID, results.done)
        #expect(t.sent() == [h("12 2d00 0000")])
        t.deliver("13")
        t.deliver("1b 2c00 41")
        #expect(results.all == [.done, .done])
        #expect(values.count == 1)
    }

    @Test func aCharacteristicThatOnlyIndicatesIsSubscribedForIndications() {
        // Service Changed in Generic Attribute: indicate only, CCCD after the value.
        let t = Harness()
        let binding = GATTServiceBinding(service: GATTUUID.genericAttributeService, bearer: t.bearer)
        let results = Results()
        var ranges: [[UInt8]] = []
        binding.subscribe(GATTUUID.serviceChanged, onValue: { ranges.append($0) }, results.done)
        #expect(t.sent() == [h("06 0100 ffff 0028 0118")])
        t.deliver("07 0600 0900")
        #expect(t.sent() == [h("06 0a00 ffff 0028 0118")])
        t.deliver("01 06 0a00 0a")
        #expect(t.sent() == [h("08 0600 0900 0328")])
        t.deliver("09 07 0700 20 0800 052a")
        #expect(t.sent() == [h("08 0800 0900 0328")])
        t.deliver("01 08 0800 0a")
        #expect(t.sent() == [h("04 0900 0900")])
        t.deliver("05 01 0900 0229")
        #expect(t.sent() == [h("12 0900 0200")])
        t.deliver("13")
        #expect(results.all == [.done])
        t.deliver("1d 0800 0100ffff")
        #expect(t.sent() == [h("1e")])
        #expect(ranges == [[0x01, 0x00, 0xFF, 0xFF]])
    }

    @Test func anAbsentServiceIsAttributeNotFoundAndIsKept() {
        let t = Harness()
        let binding = GATTServiceBinding(service: nnService, bearer: t.bearer)
        let results = Results()
        var discovery: GATTServiceDiscovery?
        binding.discover { discovery = $0 }
        _ = t.sent()
        t.deliver("01 06 0100 0a")
        #expect(discovery == .absent)
        binding.read(serverNameUUID, results.done)
        #expect(t.sent().isEmpty)
        #expect(results.all == [.attError(0x0A)])
    }

    @Test func aMissingCharacteristicOrCCCDIsAttributeNotFoundWithoutARequest() {
        let t = Harness()
        let binding = GATTServiceBinding(service: nnService, bearer: t.bearer)
        let results = Results()
        binding.discover { _ in }
        server.answerDiscovery(t)
        binding.read(BluetoothUUID(0x2A2B), results.done)
        // SERVER NAME does not notify: it has no CCCD to write.
        binding.subscribe(serverNameUUID, onValue: { _ in }, results.done)
        binding.unsubscribe(serverNameUUID, results.done)
        #expect(t.sent().isEmpty)
        #expect(results.all == [.attError(0x0A), .attError(0x0A), .attError(0x0A)])
    }

    @Test func peerErrorsAndLostLinksKeepTheirMeaning() {
        let t = Harness()
        let binding = GATTServiceBinding(service: nnService, bearer: t.bearer)
        let results = Results()
        binding.discover { _ in }
        server.answerDiscovery(t)
        binding.write(pairedClientNameUUID, value: [0x41], results.done)
        _ = t.sent()
        t.deliver("01 12 2c00 80")  // the service's own refusal
        binding.read(serverNameUUID, results.done)
        _ = t.sent()
        t.bearer.close()
        #expect(results.all == [.attError(0x80), .failed])
    }

    @Test func aFailedDiscoveryIsNotKept() {
        let t = Harness()
        let binding = GATTServiceBinding(service: nnService, bearer: t.bearer)
        let results = Results()
        var discovery: GATTServiceDiscovery?
        binding.discover { discovery = $0 }
        binding.read(serverNameUUID, results.done)
        _ = t.sent()
        t.deliver("01 06 0100 05")  // Insufficient Authentication
        #expect(discovery == .failed(.att(.insufficientAuthentication, handle: AttributeHandle(1))))
        #expect(results.all == [.attError(0x05)])
        binding.read(serverNameUUID, results.done)
        server.answerDiscovery(t)
        #expect(t.sent() == [h("0a 2a00")])
    }

    @Test func forgetMakesTheNextOperationDiscoverAgain() {
        let t = Harness()
        let binding = GATTServiceBinding(service: nnService, bearer: t.bearer)
        let results = Results()
        binding.discover { _ in }
        server.answerDiscovery(t)
        // Service Changed: the service moved by 0x10 handles.
        binding.forget()
        #expect(binding.characteristics == nil)
        binding.read(serverNameUUID, results.done)
        ScriptedNNServer(shift: 0x10).answerDiscovery(t)
        #expect(t.sent() == [h("0a 3a00")])
    }

    @Test func forgetDuringDiscoveryDiscardsWhatItFoundAndLooksAgain() {
        let t = Harness()
        let binding = GATTServiceBinding(service: nnService, bearer: t.bearer)
        let results = Results()
        var discoveries: [GATTServiceDiscovery] = []
        binding.discover { discoveries.append($0) }
        binding.read(serverNameUUID, results.done)
        #expect(t.sent().count == 1)
        binding.forget()
        // The old walk finishes (answered from the first request on) ...
        t.deliver("07 2800 3000")
        t.deliver("01 06 3100 0a")
        t.deliver("09 15 2900 02 2a00" + le(serverNameUUID))
        t.deliver("09 15 2b00 1a 2c00" + le(pairedClientNameUUID))
        t.deliver("01 08 2c00 0a")
        t.deliver("05 01 2d00 0229")
        t.deliver("01 04 2e00 0a")
        // ... and nobody was told: the walk starts over on the new database.
        #expect(discoveries.isEmpty && results.all.isEmpty)
        _ = t.sent()
        t.deliver("01 06 0100 0a")
        #expect(discoveries == [.absent])
        #expect(results.all == [.attError(0x0A)])
    }

    @Test func aClosedBearerFailsEverythingAtOnce() {
        let t = Harness()
        let binding = GATTServiceBinding(service: nnService, bearer: t.bearer)
        let results = Results()
        var discovery: GATTServiceDiscovery?
        binding.discover { discovery = $0 }
        _ = t.sent()
        t.bearer.close()
        #expect(discovery == .failed(.bearerClosed))
        binding.read(serverNameUUID, results.done)
        #expect(results.all == [.failed])
        #expect(t.sent().isEmpty)
    }

    @Test func anUnansweredDiscoveryTimesOutAsFailed() {
        let t = Harness()
        let binding = GATTServiceBinding(service: nnService, bearer: t.bearer)
        let results = Results()
        binding.read(serverNameUUID, results.done)
        _ = t.sent()
        t.bearer.handleTimeout(now: t.bearer.nextDeadline!)
        #expect(results.all == [.failed])
    }
}
