import BluetoothCore
import Testing
@testable import HCI
import ScriptedPeers

@Suite struct CommandFlowTests {
    /// A host brought up by a healthy scripted controller.
    func readyHost() -> (Host, ScriptedController) {
        let host = Host()
        var controller = ScriptedController()
        _ = controller.bringUp(host)
        return (host, controller)
    }

    @Test func bringUpRunsTheFullSequenceAndReportsReady() {
        let host = Host()
        var controller = ScriptedController()
        let evts = controller.bringUp(host)
        let opcodes = controller.sent.compactMap { HCICommand(body: $0.body)?.opcode }
        #expect(opcodes == [.reset, .readLocalVersionInformation, .readBDAddr, .readLocalSupportedCommands,
                            .readLocalSupportedFeatures, .leReadBufferSize, .setEventMask, .leSetEventMask,
                            .leReadLocalSupportedFeatures])
        #expect(host.controller.aclDataLength == 27 && host.controller.aclBufferCount == 4)
        #expect(host.controller.address == BluetoothAddress("00:11:22:33:44:55"))
        guard case .ready? = evts.last else {
            Issue.record("no ready event: \(evts.count) events")
            return
        }
    }

    @Test func onlyOneCommandInFlightWithOneCredit() {
        var (host, controller) = readyHost()
        host.send(.leSetScanParameters(active: true, interval: 96, window: 48))
        host.send(.leSetScanEnable(true, filterDuplicates: false))
        host.send(.leSetScanEnable(false, filterDuplicates: false))
        #expect(drain(host).count == 1)
        host.receive(controller.commandComplete(.leSetScanParameters, [0]), now: .zero)
        #expect(drain(host).count == 1)
    }

    @Test func numCommandPacketsGrantsSeveralCredits() {
        var (host, controller) = readyHost()
        host.send(.leSetScanParameters(active: true, interval: 96, window: 48))
        host.send(.leSetScanEnable(true, filterDuplicates: false))
        host.send(.leSetScanEnable(false, filterDuplicates: false))
        host.send(.leSetScanEnable(true, filterDuplicates: false))
        #expect(drain(host).count == 1)
        controller.commandCredits = 3
        host.receive(controller.commandComplete(.leSetScanParameters, [0]), now: .zero)
        #expect(drain(host).count == 3)
    }

    @Test func zeroCreditsHoldsCommandsUntilANopGrantsOne() {
        var (host, controller) = readyHost()
        host.send(.leSetScanParameters(active: true, interval: 96, window: 48))
        host.send(.leSetScanEnable(true, filterDuplicates: false))
        #expect(drain(host).count == 1)
        controller.commandCredits = 0
        host.receive(controller.commandComplete(.leSetScanParameters, [0]), now: .zero)
        #expect(drain(host).isEmpty)
        // A NOP Command Complete (opcode 0) grants credits without answering anything.
        controller.commandCredits = 1
        host.receive(controller.commandComplete(HCIOpcode(0), []), now: .zero)
        #expect(drain(host).count == 1)
    }

    @Test func controllerThatNeverGrantsCreditsIsReset() {
        var (host, controller) = readyHost()
        host.send(.leSetScanParameters(active: true, interval: 96, window: 48))
        host.send(.leSetScanEnable(true, filterDuplicates: false))
        _ = drain(host)
        controller.commandCredits = 0
        host.receive(controller.commandComplete(.leSetScanParameters, [0]), now: Instant(milliseconds: 100))
        #expect(drain(host, now: Instant(milliseconds: 100)).isEmpty)
        let deadline = try! #require(host.nextDeadline)
        #expect(deadline == Instant(milliseconds: 3100))
        host.handleTimeout(now: deadline)
        #expect(events(host).contains { if case .controllerReset = $0 { return true } else { return false } })
    }

    @Test func completionReceivesReturnParameters() {
        var (host, controller) = readyHost()
        _ = events(host)
        host.send(HCICommand(.leRand), tag: .numbered(7))
        _ = drain(host)
        host.receive(controller.commandComplete(.leRand, [0, 1, 2, 3, 4, 5, 6, 7, 8]), now: .zero)
        #expect(events(host) == [.commandCompleted(.numbered(7), .complete([0, 1, 2, 3, 4, 5, 6, 7, 8]))])
    }

    @Test func silentControllerIsResetAfterTheTimeout() {
        var (host, controller) = readyHost()
        _ = events(host)
        host.send(HCICommand(.leRand), tag: .numbered(7))
        _ = drain(host)
        let deadline = try! #require(host.nextDeadline)
        #expect(deadline == Instant(milliseconds: 3000))
        host.handleTimeout(now: Instant(milliseconds: 2999))
        #expect(events(host).isEmpty)
        host.handleTimeout(now: deadline)
        let evts = events(host)
        #expect(evts.contains(.commandCompleted(.numbered(7), .notAnswered)))
        #expect(evts.contains { if case .controllerReset = $0 { return true } else { return false } })
        #expect(!host.isReady)
        // After the back-off the host starts over with HCI Reset.
        let retry = try! #require(host.nextDeadline)
        host.handleTimeout(now: retry)
        let packets = drain(host)
        #expect(packets.count == 1 && HCICommand(body: packets[0].body)?.opcode == .reset)
    }

    @Test func hardwareErrorDropsLinksAndResets() {
        var (host, controller) = readyHost()
        let peer = BluetoothAddress("C4:11:22:33:44:55", kind: .random)!
        host.receive(ScriptedController.connectionComplete(handle: 0x40, peer: peer), now: .zero)
        _ = events(host)
        host.receive(ScriptedController.event(0x10, [0x07]), now: .zero)
        let evts = events(host)
        #expect(evts.contains(.disconnected(handle: ConnectionHandle(0x40), reason: .hardwareFailure)))
        #expect(host.links.isEmpty)
        // Bring-up again after the back-off, and it succeeds.
        host.handleTimeout(now: host.nextDeadline!)
        var again = ScriptedController()
        while let packet = host.pollTransmit(now: .zero) {
            if let c = HCICommand(body: packet.body), let a = again.reply(to: c) { host.receive(a, now: .zero) }
        }
        #expect(host.isReady)
    }

    @Test func unsolicitedAnswerIsIgnored() {
        var (host, controller) = readyHost()
        host.receive(controller.commandComplete(.leRand, [0, 1, 2, 3, 4, 5, 6, 7, 8]), now: .zero)
        #expect(host.isReady)
        #expect(events(host).isEmpty)
    }

    @Test func malformedEventsAreDropped() {
        var (host, controller) = readyHost()
        // A Command Status one byte short, and a Number Of Completed Packets
        // whose count promises more entries than it carries.
        host.receive([0x04, 0x0F, 0x03, 0x00, 0x01, 0x03], now: .zero)
        host.receive([0x04, 0x13, 0x05, 0x02, 0x40, 0x00, 0x01, 0x00], now: .zero)
        #expect(host.isReady)
        #expect(events(host).isEmpty)
        #expect(HCIEvent(body: [0x0F, 0x03, 0x00, 0x01, 0x03]) == nil)
        #expect(HCIEvent(body: [0x3E, 0x03, 0x01, 0x00, 0x00]) == nil)
        #expect(HCIEvent(body: [0x0E, 0x05, 0x01, 0x03]) == nil)
        #expect(host.malformedPacketsDropped == 2)
    }

    /// A nearby device can make the controller pass up malformed advertising
    /// reports thousands of times a second: each is dropped and counted, the
    /// host stays ready, and well-formed reports in between still come through.
    @Test func floodOfMalformedAdvertisingReportsIsDroppedAndCounted() {
        var (host, _) = readyHost()
        // LE Advertising Report claiming three reports and carrying one.
        let bad: [UInt8] = [0x04, 0x3E, 0x0E, 0x02, 0x03, 0x00, 0x01, 1, 2, 3, 4, 5, 0xC6, 0x00, 0xBA, 0, 0]
        let good: [UInt8] = [0x04, 0x3E, 0x0C, 0x02, 0x01, 0x00, 0x01, 1, 2, 3, 4, 5, 0xC6, 0x00, 0xBA]
        var reports = 0
        for i in 0..<3000 {
            host.receive(i % 100 == 0 ? good : bad, now: Instant(milliseconds: Int64(i / 3)))
            while let event = host.pollEvent() {
                if case .advertisingReport = event { reports += 1 }
            }
        }
        #expect(reports == 30)
        #expect(host.malformedPacketsDropped == 2970)
        #expect(host.isReady)
    }
}
