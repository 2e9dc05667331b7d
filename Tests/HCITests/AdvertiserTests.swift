import BluetoothCore
import Testing
@testable import HCI
import ScriptedPeers

/// The advertiser on its own: what it asks the controller, given answers.
@Suite struct AdvertiserTests {
    let identity = StaticRandomAddress(text: "C0:11:22:33:44:55")!
    let payload = AdvertisingPayload.accessory(name: "Car", soliciting: [BluetoothUUID("7905F431-B5CE-4E99-A40F-4B1E122D00D0")!])
    let phone = BondedIdentity(address: BluetoothAddress("F0:01:02:03:04:05", kind: .random)!, irk: [UInt8](repeating: 0xA5, count: 16))
    let localIRK = [UInt8](repeating: 0x3C, count: 16)

    /// Sends every command the advertiser asks for and answers each with
    /// `status`; returns them in order.
    func run(_ advertiser: inout Advertiser, now: Instant = .zero, status: UInt8 = 0) -> [HCICommand] {
        var sent: [HCICommand] = []
        while let command = advertiser.nextCommand(now: now), sent.count < 50 {
            sent.append(command)
            advertiser.completed(.complete([status]), now: now)
        }
        return sent
    }

    func ready(_ info: ControllerInfo = ControllerInfo()) -> Advertiser {
        var advertiser = Advertiser()
        advertiser.setIdentity(identity)
        advertiser.start(payload, now: .zero)
        advertiser.controllerReady(info, now: .zero)
        return advertiser
    }

    func privacyController() -> ControllerInfo {
        var info = ControllerInfo()
        info.supportedCommands = ScriptedController.mask([.leClearFilterAcceptList, .leAddDeviceToFilterAcceptList,
                                                          .leAddDeviceToResolvingList, .leClearResolvingList,
                                                          .leSetAddressResolutionEnable])
        info.leFeatures = 1 << 6
        return info
    }

    @Test func startsFastAsOurIdentityWithFlagsNameAndSolicitation() {
        var advertiser = ready()
        let sent = run(&advertiser)
        #expect(sent == [.leSetRandomAddress(identity),
                         .leSetAdvertisingParameters(interval: .fast, ownAddressType: .random, filterPolicy: .anyone),
                         .leSetAdvertisingData(payload.advertisingData),
                         .leSetScanResponseData(payload.scanResponse),
                         .leSetAdvertisingEnable(true)])
        #expect(advertiser.state == .advertising(.fast))
        #expect(advertiser.nextDeadline == Instant(milliseconds: 30_000))
    }

    @Test func goesSlowAfterThirtySecondsWithoutResendingTheData() {
        var advertiser = ready()
        _ = run(&advertiser)
        let later = Instant(milliseconds: 30_000)
        advertiser.handleTimeout(now: later)
        #expect(run(&advertiser, now: later) == [.leSetAdvertisingEnable(false),
                                                 .leSetAdvertisingParameters(interval: .slow, ownAddressType: .random, filterPolicy: .anyone),
                                                 .leSetAdvertisingEnable(true)])
        #expect(advertiser.state == .advertising(.slow))
        #expect(advertiser.nextDeadline == nil)
    }

    @Test func connectionStopsItWithoutADisableAndLossResumesFast() {
        var advertiser = ready()
        _ = run(&advertiser)
        advertiser.handleTimeout(now: Instant(milliseconds: 30_000))
        _ = run(&advertiser, now: Instant(milliseconds: 30_000))
        // The controller stopped by itself when the phone connected, and
        // the phone encrypted before the advertiser was asked again.
        advertiser.peripheralConnected(ConnectionHandle(0x40))
        advertiser.peripheralSecured(ConnectionHandle(0x40))
        #expect(run(&advertiser).isEmpty)
        #expect(advertiser.state == .pausedByConnection)
        #expect(advertiser.nextDeadline == nil)
        // The phone leaves at 100 s: 20 ms again, for another 30 s.
        let gone = Instant(milliseconds: 100_000)
        advertiser.peripheralDisconnected(ConnectionHandle(0x40), now: gone)
        #expect(run(&advertiser, now: gone) == [.leSetAdvertisingParameters(interval: .fast, ownAddressType: .random, filterPolicy: .anyone),
                                                .leSetAdvertisingEnable(true)])
        #expect(advertiser.nextDeadline == Instant(milliseconds: 130_000))
    }

    /// A stranger that connects and does not pair must not keep the owner
    /// out: until a link is secure the advertiser goes on (the controller
    /// stopped by itself, so it is enabled again), and pauses only once
    /// the owner tells it a link is secured.
    @Test func anUnsecuredLinkKeepsItAdvertisingUntilALinkIsSecured() {
        var advertiser = ready()
        _ = run(&advertiser)
        let stranger = ConnectionHandle(0x40), owner = ConnectionHandle(0x41)
        advertiser.peripheralConnected(stranger)
        #expect(run(&advertiser, now: Instant(milliseconds: 1000)) == [.leSetAdvertisingEnable(true)])
        #expect(advertiser.state == .advertising(.fast))
        // The owner's phone connects beside it: the controller stops again, and again it goes on.
        advertiser.peripheralConnected(owner)
        #expect(run(&advertiser, now: Instant(milliseconds: 2000)) == [.leSetAdvertisingEnable(true)])
        // The owner's link is encrypted with its bond: now nobody else needs to get in.
        advertiser.peripheralSecured(owner)
        #expect(run(&advertiser, now: Instant(milliseconds: 2500)) == [.leSetAdvertisingEnable(false)])
        #expect(advertiser.state == .pausedByConnection)
        #expect(advertiser.nextDeadline == nil)
        // The stranger going changes nothing while the phone is there.
        advertiser.peripheralDisconnected(stranger, now: Instant(milliseconds: 3000))
        #expect(run(&advertiser, now: Instant(milliseconds: 3000)).isEmpty)
        #expect(advertiser.state == .pausedByConnection)
        // A handle that is no peripheral link of ours pauses nothing.
        advertiser.peripheralDisconnected(owner, now: Instant(milliseconds: 4000))
        _ = run(&advertiser, now: Instant(milliseconds: 4000))
        advertiser.peripheralSecured(ConnectionHandle(0x99))
        #expect(advertiser.state == .advertising(.fast))
    }

    /// A controller that cannot advertise while it is connected as
    /// peripheral (its LE Supported States lack the combination) refuses
    /// the enable with Command Disallowed: it is retried, with the growing
    /// pause, and tried again at once when the stranger goes.
    @Test func aControllerThatCannotAdvertiseWhileConnectedResumesWhenTheStrangerGoes() {
        var advertiser = ready()
        _ = run(&advertiser)
        let stranger = ConnectionHandle(0x40)
        advertiser.peripheralConnected(stranger)
        var now = Instant(milliseconds: 100)
        for _ in 0..<6 {
            #expect(advertiser.nextCommand(now: now) == .leSetAdvertisingEnable(true))
            advertiser.completed(.complete([0x0C]), now: now)
            guard let retry = advertiser.nextDeadline else {
                Issue.record("no retry after the refusal")
                return
            }
            now = retry
        }
        #expect(advertiser.state == .starting)
        let gone = Instant(milliseconds: 20_000)
        #expect(now.millisecondsSince(gone) > 0, "the next retry is still far off")
        advertiser.peripheralDisconnected(stranger, now: gone)
        #expect(run(&advertiser, now: gone) == [.leSetAdvertisingEnable(true)])
        #expect(advertiser.state == .advertising(.fast))
    }

    @Test func stopDisablesButNotWhileAPhoneIsConnected() {
        var advertiser = ready()
        _ = run(&advertiser)
        advertiser.stop()
        #expect(run(&advertiser) == [.leSetAdvertisingEnable(false)])
        #expect(advertiser.state == .off)
        advertiser.start(payload, now: .zero)
        #expect(run(&advertiser) == [.leSetAdvertisingEnable(true)])
        advertiser.peripheralConnected(ConnectionHandle(1))
        advertiser.stop()
        #expect(run(&advertiser).isEmpty)
        advertiser.peripheralDisconnected(ConnectionHandle(1), now: .zero)
        #expect(run(&advertiser).isEmpty)
    }

    @Test func newPayloadReplacesTheDataWhileAdvertising() {
        var advertiser = ready()
        _ = run(&advertiser)
        let renamed = AdvertisingPayload.accessory(name: "The family van of the Smiths", soliciting: [])
        advertiser.start(renamed, now: Instant(milliseconds: 5000))
        #expect(run(&advertiser) == [.leSetAdvertisingData(renamed.advertisingData), .leSetScanResponseData(renamed.scanResponse)])
        // The fast period still ends 30 s after the first start.
        #expect(advertiser.nextDeadline == Instant(milliseconds: 30_000))
    }

    @Test func commandDisallowedIsRetriedWithAGrowingPause() {
        var advertiser = ready()
        while let command = advertiser.nextCommand(now: .zero), command.opcode != .leSetAdvertisingEnable {
            advertiser.completed(.complete([0]), now: .zero)
        }
        advertiser.completed(.complete([0x0C]), now: .zero)
        #expect(advertiser.state == .starting)
        #expect(advertiser.nextDeadline == Instant(milliseconds: 500))
        #expect(advertiser.nextCommand(now: Instant(milliseconds: 499)) == nil)
        #expect(advertiser.nextCommand(now: Instant(milliseconds: 500)) == .leSetAdvertisingEnable(true))
        advertiser.completed(.complete([0x0C]), now: Instant(milliseconds: 500))
        #expect(advertiser.nextDeadline == Instant(milliseconds: 1500))
        #expect(run(&advertiser, now: Instant(milliseconds: 1500)) == [.leSetAdvertisingEnable(true)])
        #expect(advertiser.state == .advertising(.fast))
    }

    @Test func retryPauseStopsGrowingAtSixteenSeconds() {
        var advertiser = ready()
        advertiser.slowDown() // no end of the fast period among the deadlines
        var now = Instant.zero
        var pauses: [Int64] = []
        for _ in 0..<8 {
            guard advertiser.nextCommand(now: now) != nil else { break }
            advertiser.completed(.pending(HCIStatus(0x0C)), now: now)
            let next = advertiser.nextDeadline!
            pauses.append(next.millisecondsSince(now))
            now = next
        }
        #expect(pauses == [500, 1000, 2000, 4000, 8000, 16_000, 16_000, 16_000])
    }

    @Test func unansweredCommandWaitsForTheControllerToComeBack() {
        var advertiser = ready()
        _ = advertiser.nextCommand(now: .zero)
        advertiser.completed(.notAnswered, now: .zero)
        advertiser.controllerLost()
        #expect(advertiser.nextCommand(now: .zero) == nil)
        #expect(advertiser.state == .starting)
        advertiser.controllerReady(ControllerInfo(), now: Instant(milliseconds: 4000))
        #expect(run(&advertiser, now: Instant(milliseconds: 4000)).count == 5)
        #expect(advertiser.nextDeadline == Instant(milliseconds: 34_000))
    }

    @Test func bondedAudienceProgramsTheListsWhereTheControllerResolves() {
        var advertiser = ready(privacyController())
        _ = run(&advertiser)
        advertiser.setAudience(.bonded([phone], localIRK: localIRK))
        #expect(advertiser.filtering == .controller)
        let sent = run(&advertiser)
        #expect(sent == [.leSetAdvertisingEnable(false),
                         .leSetAddressResolutionEnable(false),
                         .leClearResolvingList(),
                         .leClearFilterAcceptList(),
                         .leAddDeviceToFilterAcceptList(phone.address),
                         .leAddDeviceToResolvingList(phone.address, peerIRK: phone.irk!, localIRK: localIRK),
                         .leSetAddressResolutionEnable(true),
                         .leSetAdvertisingParameters(interval: .fast, ownAddressType: .random, filterPolicy: .connectionsFromAcceptList),
                         .leSetAdvertisingEnable(true)])
        #expect(sent[4].parameters == [0x01, 0x05, 0x04, 0x03, 0x02, 0x01, 0xF0])
        #expect(sent[5].parameters.count == 39)
        // Back to pairing mode: anyone may connect again; the lists stay.
        advertiser.setAudience(.anyone)
        #expect(run(&advertiser) == [.leSetAdvertisingEnable(false),
                                     .leSetAdvertisingParameters(interval: .fast, ownAddressType: .random, filterPolicy: .anyone),
                                     .leSetAdvertisingEnable(true)])
    }

    @Test func withoutAddressResolutionTheOwnerMustRefuseStrangers() {
        var info = privacyController()
        info.leFeatures = 0
        var advertiser = ready(info)
        advertiser.setAudience(.bonded([phone], localIRK: localIRK))
        #expect(advertiser.filtering == .host)
        let sent = run(&advertiser)
        // No list commands, and connections stay open to anyone: an accept
        // list of identities would lock out a phone with a private address.
        #expect(!sent.contains { $0.opcode == .leAddDeviceToFilterAcceptList || $0.opcode == .leAddDeviceToResolvingList })
        #expect(sent.contains(.leSetAdvertisingParameters(interval: .fast, ownAddressType: .random, filterPolicy: .anyone)))
        // A peer with a public identity and no IRK needs no resolution.
        advertiser.setAudience(.bonded([BondedIdentity(address: BluetoothAddress("00:1B:DC:01:02:03")!, irk: nil)], localIRK: localIRK))
        #expect(advertiser.filtering == .controller)
        #expect(run(&advertiser).contains(.leAddDeviceToFilterAcceptList(BluetoothAddress("00:1B:DC:01:02:03")!)))
    }

    /// A refused list command does not keep advertising off: it goes on at
    /// once for anyone (the owner refuses strangers), and the lists are
    /// programmed again from the start after the pause.
    @Test func refusedListCommandAdvertisesToAnyoneAndTriesTheListsAgain() {
        var advertiser = ready(privacyController())
        advertiser.setAudience(.bonded([phone], localIRK: localIRK))
        _ = advertiser.nextCommand(now: .zero) // Set Random Address
        advertiser.completed(.complete([0]), now: .zero)
        #expect(advertiser.nextCommand(now: .zero) == .leSetAddressResolutionEnable(false))
        #expect(advertiser.needsScanningPaused)
        advertiser.completed(.complete([0]), now: .zero)
        #expect(advertiser.nextCommand(now: .zero) == .leClearResolvingList())
        advertiser.completed(.complete([0x0C]), now: .zero)
        #expect(advertiser.filtering == .host)
        #expect(!advertiser.needsScanningPaused)
        let meanwhile = run(&advertiser)
        #expect(meanwhile.contains(.leSetAdvertisingParameters(interval: .fast, ownAddressType: .random, filterPolicy: .anyone)))
        #expect(advertiser.state == .advertising(.fast))
        // After the pause: off, the whole program, on with the accept list.
        #expect(advertiser.nextDeadline == Instant(milliseconds: 500))
        advertiser.handleTimeout(now: Instant(milliseconds: 500))
        let again = run(&advertiser, now: Instant(milliseconds: 500))
        #expect(Array(again.prefix(2)) == [.leSetAdvertisingEnable(false), .leSetAddressResolutionEnable(false)])
        #expect(again.last == .leSetAdvertisingEnable(true))
        #expect(advertiser.filtering == .controller)
        #expect(advertiser.state == .advertising(.fast))
    }

    /// A refusal every time: the pause doubles up to 16 s, and advertising
    /// is back after each try.
    @Test func aControllerThatAlwaysRefusesTheListsStillAdvertises() {
        var advertiser = ready(privacyController())
        advertiser.setAudience(.bonded([phone], localIRK: localIRK))
        var now = Instant.zero
        var tries: [Int64] = []
        for _ in 0..<7 {
            // Every list command refused, everything else accepted.
            while let command = advertiser.nextCommand(now: now) {
                let list = [HCIOpcode.leSetAddressResolutionEnable, .leClearResolvingList, .leClearFilterAcceptList,
                            .leAddDeviceToFilterAcceptList, .leAddDeviceToResolvingList].contains(command.opcode)
                advertiser.completed(.complete([list ? 0x0C : 0]), now: now)
            }
            #expect(advertiser.state == .advertising(.fast) || advertiser.state == .advertising(.slow))
            guard let next = advertiser.nextDeadline else { break }
            if next != Instant(milliseconds: 30_000) { tries.append(next.milliseconds) }
            now = next
            advertiser.handleTimeout(now: now)
        }
        // Pauses of 0.5, 1, 2, 4, 8 and 16 s (the slow interval from 30 s on).
        #expect(Array(tries.prefix(6)) == [500, 1_500, 3_500, 7_500, 15_500, 31_500])
    }

    /// Memory Capacity Exceeded: the list is full; advertising stays open
    /// and nothing is retried until the audience changes.
    @Test func aFullListIsNotRetriedForTheSameAudience() {
        var advertiser = ready(privacyController())
        advertiser.setAudience(.bonded([phone], localIRK: localIRK))
        while let command = advertiser.nextCommand(now: .zero) {
            advertiser.completed(.complete([command.opcode == .leAddDeviceToResolvingList ? 0x07 : 0]), now: .zero)
        }
        #expect(advertiser.filtering == .host)
        #expect(advertiser.state == .advertising(.fast))
        #expect(advertiser.nextDeadline == Instant(milliseconds: 30_000))
        let other = BondedIdentity(address: BluetoothAddress("F0:0A:0B:0C:0D:0E", kind: .random)!, irk: [UInt8](repeating: 0x11, count: 16))
        advertiser.setAudience(.bonded([other], localIRK: localIRK))
        #expect(advertiser.filtering == .controller)
        #expect(run(&advertiser).contains(.leAddDeviceToResolvingList(other.address, peerIRK: other.irk!, localIRK: localIRK)))
    }

    /// More bonds than the lists hold: no list is programmed, the owner
    /// filters, and fewer bonds go back to the controller's lists.
    @Test(arguments: [(1, 8), (8, 1)])
    func moreBondsThanTheListsHoldLeaveFilteringToTheOwner(acceptList: Int, resolvingList: Int) {
        var info = privacyController()
        info.filterAcceptListSize = acceptList
        info.resolvingListSize = resolvingList
        var advertiser = ready(info)
        let second = BondedIdentity(address: BluetoothAddress("F0:0A:0B:0C:0D:0E", kind: .random)!, irk: [UInt8](repeating: 0x11, count: 16))
        advertiser.setAudience(.bonded([phone, second], localIRK: localIRK))
        #expect(advertiser.filtering == .host)
        let sent = run(&advertiser)
        #expect(!sent.contains { $0.opcode == .leAddDeviceToFilterAcceptList || $0.opcode == .leAddDeviceToResolvingList })
        #expect(sent.contains(.leSetAdvertisingParameters(interval: .fast, ownAddressType: .random, filterPolicy: .anyone)))
        #expect(advertiser.state == .advertising(.fast))
        advertiser.setAudience(.bonded([phone], localIRK: localIRK))
        #expect(advertiser.filtering == .controller)
    }

    @Test func withoutIdentityItAdvertisesThePublicAddress() {
        var advertiser = Advertiser()
        advertiser.start(payload, now: .zero)
        advertiser.controllerReady(ControllerInfo(), now: .zero)
        #expect(run(&advertiser).first == .leSetAdvertisingParameters(interval: .fast, ownAddressType: .public, filterPolicy: .anyone))
    }
}
