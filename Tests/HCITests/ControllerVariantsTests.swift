import BluetoothCore
import Testing
@testable import HCI
import ScriptedPeers

/// The host on controllers that differ in what they have: commands they
/// lack are never sent, and small lists never keep advertising off.
@Suite struct ControllerVariantsTests {
    let identity = StaticRandomAddress(text: "C0:11:22:33:44:55")!
    let payload = AdvertisingPayload.accessory(name: "Car", soliciting: [BluetoothUUID("7905F431-B5CE-4E99-A40F-4B1E122D00D0")!])
    let localIRK = [UInt8](repeating: 9, count: 16)
    let phones = [
        BondedIdentity(address: BluetoothAddress("F0:01:02:03:04:05", kind: .random)!, irk: [UInt8](repeating: 7, count: 16)),
        BondedIdentity(address: BluetoothAddress("F0:0A:0B:0C:0D:0E", kind: .random)!, irk: [UInt8](repeating: 8, count: 16)),
    ]

    /// A controller with LL Privacy and the list commands.
    func privacyController(acceptList: UInt8 = 8, resolvingList: UInt8 = 8) -> ScriptedController {
        var controller = ScriptedController()
        for command: SupportedCommand in [.leReadFilterAcceptListSize, .leClearFilterAcceptList, .leAddDeviceToFilterAcceptList,
                                          .leAddDeviceToResolvingList, .leClearResolvingList, .leReadResolvingListSize,
                                          .leSetAddressResolutionEnable] {
            controller.set(command, supported: true)
        }
        controller.leFeatures = 0x41
        (controller.filterAcceptListSize, controller.resolvingListSize) = (acceptList, resolvingList)
        return controller
    }

    /// Answers every command as `controller` does (Unknown HCI Command for
    /// what it lacks), or with `status` where `refuse` says so.
    func exchange(_ host: Host, _ controller: ScriptedController, now: Instant = .zero,
                  refuse: (HCICommand) -> UInt8? = { _ in nil }) -> [HCICommand] {
        var sent: [HCICommand] = []
        while let packet = host.pollTransmit(now: now) {
            guard let command = HCICommand(body: packet.body) else { continue }
            sent.append(command)
            if let status = refuse(command) {
                host.receive(controller.commandComplete(command.opcode, [status]), now: now)
            } else {
                for answer in controller.answer(command) { host.receive(answer, now: now) }
            }
        }
        return sent
    }

    @Test func aCommandTheControllerLacksIsNotSentAndFailsAtOnce() {
        let host = Host()
        var controller = ScriptedController()
        controller.set(.readEncryptionKeySize, supported: false)
        _ = controller.bringUp(host)
        #expect(!host.controller.supports(.readEncryptionKeySize))
        _ = events(host)
        host.readEncryptionKeySize(ConnectionHandle(0x40))
        #expect(events(host) == [.encryptionKeySize(handle: ConnectionHandle(0x40), .failure(.status(.unknownCommand)))])
        #expect(drain(host).isEmpty)
        #expect(!host.hasCommandsOutstanding)
    }

    @Test func dataLengthIsNotAskedForWithoutTheCommand() {
        let host = Host()
        var controller = ScriptedController()
        controller.leFeatures = 0x21 // LE Encryption, Data Packet Length Extension
        _ = controller.bringUp(host)
        host.receive(ScriptedController.connectionComplete(handle: 0x40, peer: phones[0].address), now: .zero)
        #expect(!exchange(host, controller).contains { $0.opcode == .leSetDataLength })
        // The same controller with the command: asked for.
        let other = Host()
        var with = controller
        with.set(.leSetDataLength, supported: true)
        _ = with.bringUp(other)
        other.receive(ScriptedController.connectionComplete(handle: 0x40, peer: phones[0].address), now: .zero)
        #expect(exchange(other, with).contains { $0.opcode == .leSetDataLength })
    }

    @Test func withoutLLPrivacyNoResolvingListCommandGoesOut() {
        let host = Host()
        var controller = privacyController()
        controller.leFeatures = 0x01
        for command: SupportedCommand in [.leAddDeviceToResolvingList, .leClearResolvingList, .leReadResolvingListSize,
                                          .leSetAddressResolutionEnable] {
            controller.set(command, supported: false)
        }
        var sent = controller.bringUp(host).isEmpty ? [] : controller.sent.compactMap { HCICommand(body: $0.body) }
        host.setIdentityAddress(identity)
        host.startAdvertising(payload)
        host.setAdvertisingAudience(.bonded(phones, localIRK: localIRK))
        sent += exchange(host, controller)
        let resolving: [HCIOpcode] = [.leReadResolvingListSize, .leAddDeviceToResolvingList, .leClearResolvingList, .leSetAddressResolutionEnable]
        #expect(!sent.contains { resolving.contains($0.opcode) })
        #expect(sent.contains { $0.opcode == .leReadFilterAcceptListSize })
        #expect(host.advertiser.filtering == .host)
        #expect(host.advertiser.state == .advertising(.fast))
    }

    /// Two bonds, lists of one: the sizes read at bring-up decide; the
    /// head unit advertises to anyone and filters itself.
    @Test(arguments: [(UInt8(1), UInt8(8)), (UInt8(8), UInt8(1))])
    func smallListsLeaveFilteringToTheHostAndAdvertisingOn(acceptList: UInt8, resolvingList: UInt8) {
        let host = Host()
        var controller = privacyController(acceptList: acceptList, resolvingList: resolvingList)
        _ = controller.bringUp(host)
        #expect(host.controller.filterAcceptListSize == Int(acceptList))
        #expect(host.controller.resolvingListSize == Int(resolvingList))
        host.setIdentityAddress(identity)
        host.startAdvertising(payload)
        host.setAdvertisingAudience(.bonded(phones, localIRK: localIRK))
        let sent = exchange(host, controller)
        #expect(!sent.contains { $0.opcode == .leAddDeviceToFilterAcceptList || $0.opcode == .leAddDeviceToResolvingList })
        #expect(sent.contains(.leSetAdvertisingParameters(interval: .fast, ownAddressType: .random, filterPolicy: .anyone)))
        #expect(host.advertiser.filtering == .host)
        #expect(host.advertiser.state == .advertising(.fast))
        // One bond fits: the controller filters again.
        host.setAdvertisingAudience(.bonded([phones[0]], localIRK: localIRK))
        let again = exchange(host, controller)
        #expect(again.contains(.leAddDeviceToFilterAcceptList(phones[0].address)))
        #expect(host.advertiser.filtering == .controller)
        #expect(host.advertiser.state == .advertising(.fast))
    }

    /// A controller that refuses the accept list for a while: advertising
    /// is back at once (open), and the host's timer brings the lists back.
    @Test func aRefusedListComesBackOnTheHostTimer() throws {
        let host = Host()
        var controller = privacyController()
        _ = controller.bringUp(host)
        host.setIdentityAddress(identity)
        host.startAdvertising(payload)
        host.setAdvertisingAudience(.bonded([phones[0]], localIRK: localIRK))
        var refusals = 3
        let refuse: (HCICommand) -> UInt8? = { command in
            guard command.opcode == .leAddDeviceToFilterAcceptList, refusals > 0 else { return nil }
            refusals -= 1
            return HCIStatus.commandDisallowed.code
        }
        _ = exchange(host, controller, refuse: refuse)
        #expect(host.advertiser.state == .advertising(.fast))
        #expect(host.advertiser.filtering == .host)
        var now = Instant.zero
        while host.advertiser.filtering != .controller, now.milliseconds < 10_000 {
            now = try #require(host.nextDeadline)
            host.handleTimeout(now: now)
            _ = exchange(host, controller, now: now, refuse: refuse)
            #expect(host.advertiser.state == .advertising(.fast))
        }
        #expect(host.advertiser.filtering == .controller)
        #expect(now == Instant(milliseconds: 500 + 1_000 + 2_000))
    }
}
