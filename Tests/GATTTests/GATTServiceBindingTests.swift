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

/// A binding to the NavigationNotifier service on a fresh bearer, drained
/// as the bearer's owner does (the binding sees each completion first),
/// with what its tracked operations and discoveries reported, in the order
/// they completed, and the values it named.
final class BindingHarness {
    let t = Harness()
    let binding: GATTServiceBinding
    private var tracked: Set<GATTRequestID> = []

    init(service: BluetoothUUID = nnService) {
        binding = GATTServiceBinding(service: service, bearer: t.bearer)
        t.binding = binding
    }

    func track(_ id: GATTRequestID) { tracked.insert(id) }
    func discover() { track(binding.discover()) }

    private var outcomes: [GATTClientResult] {
        t.drain()
        return t.completed.filter { tracked.contains($0.0) }.map { $0.1 }
    }

    var results: [RemoteOperationResult] {
        outcomes.compactMap { if case .discovered = $0 { return nil }; return RemoteOperationResult($0) }
    }

    var discoveries: [GATTServiceDiscovery] {
        outcomes.compactMap { if case .discovered(let d) = $0 { return d }; return nil }
    }

    func values(of characteristic: BluetoothUUID) -> [[UInt8]] {
        t.drain()
        return t.namedValues.filter { $0.0 == characteristic }.map { $0.1 }
    }
}

@Suite struct GATTServiceBindingTests {
    let server = ScriptedNNServer()

    @Test func discoversOnceThenReadsByUUID() {
        let f = BindingHarness()
        let (t, binding) = (f.t, f.binding)
        f.track(binding.read(serverNameUUID))
        server.answerDiscovery(t)
        #expect(binding.characteristics?[serverNameUUID] ==
                GATTCharacteristicHandles(value: AttributeHandle(0x2A), cccd: nil, properties: .read))
        #expect(binding.characteristics?[pairedClientNameUUID] ==
                GATTCharacteristicHandles(value: AttributeHandle(0x2C), cccd: AttributeHandle(0x2D), properties: [.read, .write, .notify]))
        #expect(t.sent() == [h("0a 2a00")])
        t.deliver("0b 4950484f4e45")
        #expect(f.results == [.value(Array("IPHONE".utf8))])
        // The second read goes straight to the handle.
        f.track(binding.read(pairedClientNameUUID))
        #expect(t.sent() == [h("0a 2c00")])
        t.deliver("0b 2d")
        #expect(f.results.last == .value([0x2D]))
    }

    @Test func operationsAskedTogetherShareOneDiscovery() {
        let f = BindingHarness()
        let (t, binding) = (f.t, f.binding)
        f.track(binding.read(serverNameUUID))
        f.track(binding.write(pairedClientNameUUID, value: Array("HU".utf8)))
        f.discover()
        server.answerDiscovery(t)
        #expect(f.discoveries == [.found([serverNameUUID, pairedClientNameUUID])])
        #expect(t.sent() == [h("0a 2a00")])
        t.deliver("0b 41")
        #expect(t.sent() == [h("12 2c00 4855")])
        t.deliver("13")
        #expect(f.results == [.value([0x41]), .done])
        // Reads and writes keep using the handles found ...
        f.track(binding.read(serverNameUUID))
        #expect(t.sent() == [h("0a 2a00")])
        t.deliver("0b 42")
        // ... while discover, asked again, looks at the phone again.
        f.discover()
        ScriptedNNServer(shift: 0x10).answerDiscovery(t)
        #expect(f.discoveries.count == 2)
        f.track(binding.read(serverNameUUID))
        #expect(t.sent() == [h("0a 3a00")])
    }

    @Test func subscribeWritesTheCCCDAndRoutesNotifications() {
        let f = BindingHarness()
        let (t, binding) = (f.t, f.binding)
        f.track(binding.subscribe(pairedClientNameUUID))
        server.answerDiscovery(t)
        #expect(t.sent() == [h("12 2d00 0100")])
        t.deliver("13")
        #expect(f.results == [.done])
        t.deliver("1b 2c00 554e504149524544")
        #expect(f.values(of: pairedClientNameUUID) == [Array("UNPAIRED".utf8)])

        f.track(binding.unsubscribe(pairedClientNameUUID))
        #expect(t.sent() == [h("12 2d00 0000")])
        t.deliver("13")
        t.deliver("1b 2c00 41")
        #expect(f.results == [.done, .done])
        #expect(f.values(of: pairedClientNameUUID).count == 1)
    }

    @Test func aRefusedSubscriptionNamesNoValues() {
        let f = BindingHarness()
        let (t, binding) = (f.t, f.binding)
        f.track(binding.subscribe(pairedClientNameUUID))
        server.answerDiscovery(t)
        #expect(t.sent() == [h("12 2d00 0100")])
        t.deliver("01 12 2d00 05")  // Insufficient Authentication
        #expect(f.results == [.attError(0x05)])
        t.deliver("1b 2c00 41")
        #expect(f.values(of: pairedClientNameUUID).isEmpty)
        #expect(binding.characteristic(notifiedAt: AttributeHandle(0x2C)) == nil)
    }

    @Test func aCharacteristicThatOnlyIndicatesIsSubscribedForIndications() {
        // Service Changed in Generic Attribute: indicate only, CCCD after the value.
        let f = BindingHarness(service: GATTUUID.genericAttributeService)
        let (t, binding) = (f.t, f.binding)
        f.track(binding.subscribe(GATTUUID.serviceChanged))
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
        #expect(f.results == [.done])
        t.deliver("1d 0800 0100ffff")
        #expect(t.sent() == [h("1e")])
        #expect(f.values(of: GATTUUID.serviceChanged) == [[0x01, 0x00, 0xFF, 0xFF]])
    }

    @Test func anAbsentServiceIsAttributeNotFoundAndIsKept() {
        let f = BindingHarness()
        let (t, binding) = (f.t, f.binding)
        f.discover()
        _ = t.sent()
        t.deliver("01 06 0100 0a")
        #expect(f.discoveries == [.absent])
        f.track(binding.read(serverNameUUID))
        #expect(t.sent().isEmpty)
        #expect(f.results == [.attError(0x0A)])
    }

    @Test func aMissingCharacteristicOrCCCDIsAttributeNotFoundWithoutARequest() {
        let f = BindingHarness()
        let (t, binding) = (f.t, f.binding)
        binding.discover()
        server.answerDiscovery(t)
        f.track(binding.read(BluetoothUUID(0x2A2B)))
        // SERVER NAME does not notify: it has no CCCD to write.
        f.track(binding.subscribe(serverNameUUID))
        f.track(binding.unsubscribe(serverNameUUID))
        #expect(t.sent().isEmpty)
        #expect(f.results == [.attError(0x0A), .attError(0x0A), .attError(0x0A)])
    }

    @Test func peerErrorsAndLostLinksKeepTheirMeaning() {
        let f = BindingHarness()
        let (t, binding) = (f.t, f.binding)
        binding.discover()
        server.answerDiscovery(t)
        f.track(binding.write(pairedClientNameUUID, value: [0x41]))
        _ = t.sent()
        t.deliver("01 12 2c00 80")  // the service's own refusal
        f.track(binding.read(serverNameUUID))
        _ = t.sent()
        t.bearer.close()
        #expect(f.results == [.attError(0x80), .failed])
    }

    @Test func aFailedDiscoveryIsNotKept() {
        let f = BindingHarness()
        let (t, binding) = (f.t, f.binding)
        f.discover()
        f.track(binding.read(serverNameUUID))
        _ = t.sent()
        t.deliver("01 06 0100 05")  // Insufficient Authentication
        #expect(f.discoveries == [.failed(.att(.insufficientAuthentication, handle: AttributeHandle(1)))])
        #expect(f.results == [.attError(0x05)])
        f.track(binding.read(serverNameUUID))
        server.answerDiscovery(t)
        #expect(t.sent() == [h("0a 2a00")])
    }

    @Test func forgetMakesTheNextOperationDiscoverAgain() {
        let f = BindingHarness()
        let (t, binding) = (f.t, f.binding)
        binding.discover()
        server.answerDiscovery(t)
        // Service Changed: the service moved by 0x10 handles.
        binding.forget()
        #expect(binding.characteristics == nil)
        f.track(binding.read(serverNameUUID))
        ScriptedNNServer(shift: 0x10).answerDiscovery(t)
        #expect(t.sent() == [h("0a 3a00")])
    }

    @Test func forgetDuringDiscoveryDiscardsWhatItFoundAndLooksAgain() {
        let f = BindingHarness()
        let (t, binding) = (f.t, f.binding)
        f.discover()
        f.track(binding.read(serverNameUUID))
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
        #expect(f.discoveries.isEmpty && f.results.isEmpty)
        _ = t.sent()
        t.deliver("01 06 0100 0a")
        #expect(f.discoveries == [.absent])
        #expect(f.results == [.attError(0x0A)])
    }

    @Test func aClosedBearerFailsEverythingAtOnce() {
        let f = BindingHarness()
        let (t, binding) = (f.t, f.binding)
        f.discover()
        _ = t.sent()
        t.bearer.close()
        #expect(f.discoveries == [.failed(.bearerClosed)])
        f.track(binding.read(serverNameUUID))
        #expect(f.results == [.failed])
        #expect(t.sent().isEmpty)
    }

    @Test func anUnansweredDiscoveryTimesOutAsFailed() {
        let f = BindingHarness()
        let (t, binding) = (f.t, f.binding)
        f.track(binding.read(serverNameUUID))
        _ = t.sent()
        t.bearer.handleTimeout(now: t.bearer.nextDeadline!)
        #expect(f.results == [.failed])
    }
}
