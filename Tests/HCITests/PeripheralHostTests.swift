import BluetoothCore
import Testing
@testable import HCI
import ScriptedPeers

/// The host with advertising and peripheral links, against a scripted
/// controller that accepts every command.
@Suite struct PeripheralHostTests {
    let identity = StaticRandomAddress(text: "C0:11:22:33:44:55")!
    let payload = AdvertisingPayload.accessory(name: "Car", soliciting: [BluetoothUUID("7905F431-B5CE-4E99-A40F-4B1E122D00D0")!])
    let phoneRPA = BluetoothAddress("5D:01:02:03:04:05", kind: .random)!

    func readyHost() -> (Host, ScriptedController) {
        let host = Host()
        var controller = ScriptedController()
        _ = controller.bringUp(host)
        return (host, controller)
    }

    /// Answers every command the host sends with success; returns them.
    func accept(_ host: Host, _ controller: ScriptedController, now: Instant = .zero) -> [HCICommand] {
        var sent: [HCICommand] = []
        while let packet = host.pollTransmit(now: now) {
            guard let command = HCICommand(body: packet.body) else { continue }
            sent.append(command)
            host.receive(controller.commandComplete(command.opcode, [0]), now: now)
        }
        return sent
    }

    /// LE (Enhanced) Connection Complete for a link where we are peripheral.
    static func peripheralConnectionComplete(handle: UInt16, peer: BluetoothAddress, peerRPA: BluetoothAddress? = nil) -> [UInt8] {
        let enhanced = peerRPA != nil
        var p: [UInt8] = [enhanced ? 0x0A : 0x01, 0x00, UInt8(handle & 0xFF), UInt8(handle >> 8), 0x01, peer.kind.rawValue]
        p += peer.littleEndianBytes
        if let rpa = peerRPA { p += [UInt8](repeating: 0, count: 6) + rpa.littleEndianBytes }
        p += [24, 0, 0, 0, 0x90, 0x01, 0x00]
        return ScriptedController.event(0x3E, p)
    }

    @Test func identityGoesToTheControllerBeforeReadyIsReported() {
        let host = Host()
        host.setIdentityAddress(identity)
        var controller = ScriptedController()
        let evts = controller.bringUp(host)
        guard case .ready? = evts.last else {
            Issue.record("not ready")
            return
        }
        // The owner reacts to .ready by scanning: LE Set Random Address is already out first.
        let last = controller.sent.last.flatMap { HCICommand(body: $0.body) }
        #expect(last == .leSetRandomAddress(identity))
        host.startScanning(active: true)
        host.receive(controller.commandComplete(.leSetRandomAddress, [0]), now: .zero)
        let sent = accept(host, controller)
        #expect(sent.contains(.leSetScanEnable(true, filterDuplicates: false)))
        // Scanning keeps the public address.
        #expect(sent.contains(.leSetScanParameters(active: true, interval: 0x60, window: 0x30, ownAddressType: 0)))
    }

    @Test func scansAndAdvertisesAtOnceAndAPhoneConnectingAsCentralPausesOnlyTheAdvertising() {
        let (host, controller) = readyHost()
        host.setIdentityAddress(identity)
        host.startScanning(active: true)
        host.startAdvertising(payload)
        let sent = accept(host, controller)
        #expect(sent.contains(.leSetAdvertisingEnable(true)))
        #expect(!sent.contains(.leSetScanEnable(false, filterDuplicates: false)))
        #expect(host.isScanning)
        #expect(host.advertiser.state == .advertising(.fast))

        host.receive(PeripheralHostTests.peripheralConnectionComplete(handle: 0x41, peer: phoneRPA), now: Instant(milliseconds: 2000))
        let link = host.links[ConnectionHandle(0x41)]
        #expect(link?.role == .peripheral)
        #expect(link?.localAddress == identity.address)
        #expect(events(host).contains { if case .connected(let l) = $0 { return l.role == .peripheral } else { return false } })
        // The controller stopped advertising by itself; until the link is
        // secure it goes on (a stranger must not keep the phone out).
        #expect(accept(host, controller, now: Instant(milliseconds: 2000)) == [.leSetAdvertisingEnable(true)])
        #expect(host.advertiser.state == .advertising(.fast))
        // The phone encrypts: advertising pauses, the scan goes on.
        host.peripheralLinkSecured(ConnectionHandle(0x41))
        #expect(accept(host, controller, now: Instant(milliseconds: 2000)) == [.leSetAdvertisingEnable(false)])
        #expect(host.advertiser.state == .pausedByConnection)
        #expect(host.isScanning)

        // Link loss: advertising again at 20 ms, for 30 s from now.
        host.receive(ScriptedController.event(0x05, [0x00, 0x41, 0x00, 0x08]), now: Instant(milliseconds: 9000))
        #expect(accept(host, controller, now: Instant(milliseconds: 9000)) == [.leSetAdvertisingEnable(true)])
        #expect(host.advertiser.state == .advertising(.fast))
        #expect(host.nextDeadline == Instant(milliseconds: 39_000))
        host.handleTimeout(now: Instant(milliseconds: 39_000))
        #expect(accept(host, controller, now: Instant(milliseconds: 39_000)).contains(
            .leSetAdvertisingParameters(interval: .slow, ownAddressType: .random, filterPolicy: .anyone)))
    }

    @Test func aLegacyControllerGetsTheCombinedPayloadAndNoTurns() {
        let (host, controller) = readyHost()
        let service = BluetoothUUID("D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C44")!
        let bridge = AdvertisingPayload.offering(service, name: "Car")
        let combined = AdvertisingPayload.combined(name: "Car", soliciting: [], service: service)
        host.startAdvertising(Advertisement(sets: [payload, bridge], combined: combined))
        let sent = accept(host, controller)
        #expect(sent.contains(.leSetAdvertisingData(combined.advertisingData)))
        #expect(sent.contains(.leSetScanResponseData(combined.scanResponse)))
        #expect(!sent.contains(.leSetAdvertisingData(payload.advertisingData)))
        #expect(host.advertiser.nextDeadline == Instant(milliseconds: 30_000), "the end of the fast period, no turn")
        host.receive(PeripheralHostTests.peripheralConnectionComplete(handle: 0x41, peer: phoneRPA), now: Instant(milliseconds: 3500))
        host.peripheralLinkSecured(ConnectionHandle(0x41))
        #expect(host.advertiser.state == .pausedByConnection)
        #expect(host.advertiser.nextDeadline == nil)
    }

    @Test func centralLinkLeavesAdvertisingAlone() {
        let (host, controller) = readyHost()
        host.startAdvertising(payload)
        _ = accept(host, controller)
        host.receive(ScriptedController.connectionComplete(handle: 0x40, peer: phoneRPA), now: .zero)
        #expect(host.links[ConnectionHandle(0x40)]?.localAddress == host.controller.address)
        #expect(host.advertiser.state == .advertising(.fast))
    }

    @Test func refusedEnableIsRetriedByTheHostTimer() {
        let (host, controller) = readyHost()
        host.startAdvertising(payload)
        var refused = false
        while let packet = host.pollTransmit(now: .zero) {
            let command = HCICommand(body: packet.body)!
            let status: UInt8 = command.opcode == .leSetAdvertisingEnable && !refused ? 0x0C : 0
            if status != 0 { refused = true }
            host.receive(controller.commandComplete(command.opcode, [status]), now: .zero)
        }
        #expect(refused && host.advertiser.state == .starting)
        #expect(host.nextDeadline == Instant(milliseconds: 500))
        host.handleTimeout(now: Instant(milliseconds: 500))
        #expect(accept(host, controller, now: Instant(milliseconds: 500)) == [.leSetAdvertisingEnable(true)])
        #expect(host.advertiser.state == .advertising(.fast))
    }

    @Test func bringUpAgainDropsARetryThatWasDue() {
        let (host, controller) = readyHost()
        host.startAdvertising(payload)
        while let packet = host.pollTransmit(now: .zero) {
            let command = HCICommand(body: packet.body)!
            host.receive(controller.commandComplete(command.opcode, [command.opcode == .leSetAdvertisingEnable ? 0x0C : 0]), now: .zero)
        }
        #expect(host.advertiser.nextDeadline == Instant(milliseconds: 500))
        // The transport is opened again without a close in between.
        host.start(now: Instant(milliseconds: 100))
        #expect(!host.isReady)
        // Only the end of the fast period is left: no retry into a controller in bring-up.
        #expect(host.advertiser.nextDeadline == Instant(milliseconds: 30_000))
    }

    @Test func advertisingComesBackAfterAControllerReset() {
        let (host, controller) = readyHost()
        host.setIdentityAddress(identity)
        host.startAdvertising(payload)
        _ = accept(host, controller)
        host.receive(ScriptedController.event(0x10, [0x01]), now: .zero) // Hardware Error
        #expect(host.advertiser.state == .starting)
        host.handleTimeout(now: host.nextDeadline!)
        let again = ScriptedController()
        var sent: [HCICommand] = []
        while let packet = host.pollTransmit(now: Instant(milliseconds: 1000)) {
            let command = HCICommand(body: packet.body)!
            sent.append(command)
            host.receive(again.reply(to: command) ?? again.commandComplete(command.opcode, [0]), now: Instant(milliseconds: 1000))
        }
        #expect(sent.contains(.leSetRandomAddress(identity)))
        #expect(sent.last == .leSetAdvertisingEnable(true))
        #expect(host.advertiser.state == .advertising(.fast))
    }

    @Test func resolvingListIsProgrammedWithTheScanPaused() {
        let host = Host()
        var controller = ScriptedController()
        for command: SupportedCommand in [.leClearFilterAcceptList, .leAddDeviceToFilterAcceptList, .leAddDeviceToResolvingList,
                                          .leClearResolvingList, .leSetAddressResolutionEnable] {
            controller.set(command, supported: true)
        }
        controller.leFeatures = 0x41
        _ = controller.bringUp(host)
        host.startScanning(active: true, interval: 0x0800, window: 0x0030)
        host.startAdvertising(payload)
        _ = accept(host, controller)
        let phone = BondedIdentity(address: BluetoothAddress("F0:01:02:03:04:05", kind: .random)!, irk: [UInt8](repeating: 7, count: 16))
        host.setAdvertisingAudience(.bonded([phone], localIRK: [UInt8](repeating: 9, count: 16)))
        let sent = accept(host, controller)
        let opcodes = sent.map { $0.opcode }
        let scanOff = try! #require(opcodes.firstIndex(of: .leSetScanEnable))
        let firstList = try! #require(opcodes.firstIndex(of: .leSetAddressResolutionEnable))
        let scanOn = try! #require(opcodes.lastIndex(of: .leSetScanEnable))
        let lastList = try! #require(opcodes.lastIndex(of: .leSetAddressResolutionEnable))
        #expect(sent[scanOff] == .leSetScanEnable(false, filterDuplicates: false))
        #expect(scanOff < firstList && lastList < scanOn)
        // The owner's slow scan comes back as it was.
        #expect(sent.contains(.leSetScanParameters(active: true, interval: 0x0800, window: 0x0030)))
        #expect(host.isScanning)
        #expect(host.advertiser.filtering == .controller)
        #expect(host.advertiser.state == .advertising(.fast))
    }

    @Test func enhancedConnectionCompleteKeepsThePeersPrivateAddress() {
        let (host, _) = readyHost()
        let identityOfPhone = BluetoothAddress("F0:01:02:03:04:05", kind: .randomIdentity)!
        host.receive(PeripheralHostTests.peripheralConnectionComplete(handle: 0x42, peer: identityOfPhone, peerRPA: phoneRPA), now: .zero)
        let link = try! #require(host.links[ConnectionHandle(0x42)])
        #expect(link.role == .peripheral && link.peer == identityOfPhone)
        #expect(link.peerResolvablePrivateAddress == phoneRPA)
        // Without a static identity the public address is ours on air.
        #expect(link.localAddress == host.controller.address)
    }

    @Test func longTermKeyRequestIsAnsweredWithTypedCommands() {
        let (host, controller) = readyHost()
        host.receive(PeripheralHostTests.peripheralConnectionComplete(handle: 0x41, peer: phoneRPA), now: .zero)
        _ = accept(host, controller)
        // LE Long Term Key Request: handle, Rand, EDIV (zeros: an LE Secure Connections key).
        host.receive(ScriptedController.event(0x3E, [0x05, 0x41, 0x00] + [UInt8](repeating: 0, count: 10)), now: .zero)
        #expect(events(host).contains(.longTermKeyRequest(handle: ConnectionHandle(0x41), random: 0, ediv: 0)))
        let ltk = Array(UInt8(1)...UInt8(16))
        host.replyToLongTermKeyRequest(ConnectionHandle(0x41), ltk: ltk)
        host.refuseLongTermKeyRequest(ConnectionHandle(0x41))
        // A key of the wrong size is never handed to the controller.
        host.replyToLongTermKeyRequest(ConnectionHandle(0x41), ltk: [1, 2, 3])
        let sent = drain(host).compactMap { HCICommand(body: $0.body) }
        #expect(sent.first == HCICommand(.leLongTermKeyRequestReply, [0x41, 0x00] + ltk))
        for command in sent { host.receive(controller.commandComplete(command.opcode, [0, 0x41, 0]), now: .zero) }
        #expect(accept(host, controller) == [HCICommand(.leLongTermKeyRequestNegativeReply, [0x41, 0x00]),
                         HCICommand(.leLongTermKeyRequestNegativeReply, [0x41, 0x00])])
    }
}
