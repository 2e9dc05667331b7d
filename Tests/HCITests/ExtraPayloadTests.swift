import BluetoothCore
import Testing
@testable import HCI

/// The advertisement's extra payload (GhostDrop's): a set of its own where
/// the controller has one more, else its advertising data taking turns
/// with the first payload's on the first set, the scan response (and so
/// the name) staying the first payload's.
extension AdvertisingSetsTests {
    static let ghostService = BluetoothUUID("BFA6E968-0F36-4888-8F63-C8EC01385E67")!
    var ghost: AdvertisingPayload { AdvertisingPayload.offering(Self.ghostService, name: "NotifBdg Car") }
    var withExtra: Advertisement { Advertisement(sets: [settings, bridge], combined: combined, extra: ghost) }
    var set2: AdvertisingSetHandle { AdvertisingSetHandle(2) }

    func readyWithExtra(_ info: ControllerInfo) -> Advertiser { ready(info, withExtra) }

    func at(_ ms: Int64) -> Instant { Instant(milliseconds: ms) }

    /// Runs the timeout due at `ms` and the commands it brings.
    func tick(_ advertiser: inout Advertiser, _ ms: Int64) -> [HCICommand] {
        #expect(advertiser.nextDeadline == at(ms))
        advertiser.handleTimeout(now: at(ms))
        return run(&advertiser, now: at(ms))
    }

    // MARK: - The extra payload (GhostDrop's)

    @Test func theShapeForEachNumberOfSets() {
        let extra = ghost.advertisingData
        #expect(withExtra.shape(sets: 3).payloads == [settings, bridge, ghost])
        #expect(withExtra.shape(sets: 3).turn == nil)
        #expect(withExtra.shape(sets: 2).payloads == [settings, bridge])
        #expect(withExtra.shape(sets: 2).turn == extra)
        #expect(withExtra.shape(sets: 1).payloads == [combined])
        #expect(withExtra.shape(sets: 1).turn == extra)
        let alone = Advertisement(settings, extra: ghost)
        #expect(alone.shape(sets: 2).payloads == [settings, ghost])
        #expect(alone.shape(sets: 1).payloads == [settings])
        #expect(alone.shape(sets: 1).turn == extra)
        #expect(Advertisement(settings).shape(sets: 1).turn == nil)
        // The extra advertises its service first thing, and names the head unit as the others do.
        #expect(AdvertisingData(extra).advertises(Self.ghostService))
        #expect(AdvertisingData(ghost.scanResponse).completeName == "NotifBdg Car")
    }

    @Test func threeSetsGiveTheExtraASetOfItsOwnAndNoTurns() {
        var advertiser = readyWithExtra(Self.withSets(3))
        let sent = run(&advertiser)
        #expect(sent.contains(.leSetExtendedAdvertisingData(set2, ghost.advertisingData)))
        #expect(sent.contains(.leSetExtendedScanResponseData(set2, ghost.scanResponse)))
        #expect(sent.last == .leEnableAdvertisingSets([set0, set1, set2]))
        #expect(advertiser.payloads == [settings, bridge, ghost])
        #expect(advertiser.nextDeadline == at(30_000), "nothing to do but go slow: no turns")
    }

    @Test func twoSetsTakeTurnsOnTheFirstWithoutAPause() {
        var advertiser = readyWithExtra(Self.withSets(2))
        #expect(run(&advertiser).last == .leEnableAdvertisingSets([set0, set1]))
        #expect(advertiser.payloads == [settings, bridge])
        // The extra's turn: only the first set's advertising data changes, on air.
        #expect(tick(&advertiser, 2_000) == [.leSetExtendedAdvertisingData(set0, ghost.advertisingData)])
        #expect(advertiser.payloads[0].scanResponse == settings.scanResponse, "the same name in the scan response")
        #expect(advertiser.payloads[1] == bridge)
        #expect(advertiser.state == .advertising(.fast))
        // And back, then the extra again: 1 s of every 3.
        #expect(tick(&advertiser, 3_000) == [.leSetExtendedAdvertisingData(set0, settings.advertisingData)])
        #expect(tick(&advertiser, 5_000) == [.leSetExtendedAdvertisingData(set0, ghost.advertisingData)])
        #expect(advertiser.nextDeadline == at(6_000))
    }

    @Test func legacyAdvertisingTakesTurnsWithTheCombinedPayload() {
        var advertiser = readyWithExtra(ControllerInfo())
        #expect(run(&advertiser).last == .leSetAdvertisingEnable(true))
        #expect(tick(&advertiser, 2_000) == [.leSetAdvertisingData(ghost.advertisingData)])
        #expect(advertiser.payloads == [combined.advertising(ghost.advertisingData)])
        #expect(tick(&advertiser, 3_000) == [.leSetAdvertisingData(combined.advertisingData)])
    }

    @Test func goingSlowKeepsTheTurn() {
        var advertiser = readyWithExtra(Self.withSets(1))
        _ = run(&advertiser)
        for ms in stride(from: Int64(2_000), through: 26_000, by: 3_000) {
            #expect(tick(&advertiser, ms) == [.leSetExtendedAdvertisingData(set0, ghost.advertisingData)])
            #expect(tick(&advertiser, ms + 1_000) == [.leSetExtendedAdvertisingData(set0, combined.advertisingData)])
        }
        #expect(tick(&advertiser, 29_000) == [.leSetExtendedAdvertisingData(set0, ghost.advertisingData)])
        // 30 s: the slow interval (disable, parameters, enable) and the first's turn together.
        #expect(tick(&advertiser, 30_000) == [
            .leDisableAllAdvertisingSets(),
            .leSetExtendedAdvertisingParameters(set0, interval: .slow, ownAddressType: .random, filterPolicy: .anyone),
            .leSetExtendedAdvertisingData(set0, combined.advertisingData), .leEnableAdvertisingSets([set0]),
        ])
        #expect(advertiser.state == .advertising(.slow))
        #expect(tick(&advertiser, 32_000) == [.leSetExtendedAdvertisingData(set0, ghost.advertisingData)])
    }

    /// The phone's link is secure: only the extra's advertising data stays
    /// on air, on the first set under its scan response, slow; no turns.
    @Test func whileTheOwnersPhoneIsInOnlyTheExtraStaysOnAir() {
        var advertiser = readyWithExtra(Self.withSets(1))
        _ = run(&advertiser)
        advertiser.peripheralConnected(ConnectionHandle(0x40))
        advertiser.peripheralSecured(ConnectionHandle(0x40))
        // The connection ended the one set: the extra alone, slow.
        #expect(run(&advertiser) == [parameters(set0, .slow), .leSetExtendedAdvertisingData(set0, ghost.advertisingData),
                                     .leEnableAdvertisingSets([set0])])
        #expect(advertiser.payloads == [combined.advertising(ghost.advertisingData)], "the combined payload's name")
        #expect(advertiser.state == .pausedByConnection)
        #expect(advertiser.nextDeadline == nil, "no turns, nothing to go slow")
        advertiser.handleTimeout(now: at(10_000))
        #expect(run(&advertiser, now: at(10_000)).isEmpty)
        // The link goes: everything again, fast, then the turns.
        advertiser.peripheralDisconnected(ConnectionHandle(0x40), now: at(40_000))
        #expect(run(&advertiser, now: at(40_000)) == [
            .leDisableAllAdvertisingSets(), parameters(set0),
            .leSetExtendedAdvertisingData(set0, combined.advertisingData), .leEnableAdvertisingSets([set0]),
        ])
        #expect(advertiser.state == .advertising(.fast))
        advertiser.handleTimeout(now: at(40_000))
        #expect(run(&advertiser, now: at(40_000)) == [.leSetExtendedAdvertisingData(set0, ghost.advertisingData)])
        #expect(advertiser.nextDeadline == at(41_000))
    }

    @Test func withASetEachThePhoneLeavesTheExtraAloneOnTheFirstSet() {
        var advertiser = readyWithExtra(Self.withSets(3))
        _ = run(&advertiser)
        advertiser.peripheralConnected(ConnectionHandle(0x40))
        advertiser.peripheralSecured(ConnectionHandle(0x40))
        #expect(run(&advertiser) == [
            .leDisableAllAdvertisingSets(), parameters(set0, .slow),
            .leSetExtendedAdvertisingData(set0, ghost.advertisingData), .leEnableAdvertisingSets([set0]),
        ])
        #expect(advertiser.payloads[0].scanResponse == settings.scanResponse)
    }

    /// A controller that cannot advertise while connected is not asked
    /// again every 16 s for as long as the phone stays: only once a link goes.
    @Test func aRefusalWhileThePhoneIsInWaitsForTheLinkToGo() {
        var advertiser = readyWithExtra(ControllerInfo())
        _ = run(&advertiser)
        advertiser.peripheralConnected(ConnectionHandle(0x40))
        advertiser.peripheralSecured(ConnectionHandle(0x40))
        var sent: [HCICommand] = []
        while let command = advertiser.nextCommand(now: at(100)), sent.count < 10 {
            sent.append(command)
            advertiser.completed(command.opcode == .leSetAdvertisingEnable ? .complete([0x0C]) : .complete([0]), now: at(100))
        }
        #expect(sent.last == .leSetAdvertisingEnable(true), "\(sent)")
        #expect(advertiser.payloads.isEmpty)
        #expect(advertiser.nextDeadline == nil)
        #expect(advertiser.nextCommand(now: at(60_000)) == nil)
        advertiser.peripheralDisconnected(ConnectionHandle(0x40), now: at(70_000))
        #expect(run(&advertiser, now: at(70_000)).last == .leSetAdvertisingEnable(true))
        #expect(advertiser.state == .advertising(.fast))
    }

    @Test func aControllerResetStartsOverWithTheFirstPayload() {
        var advertiser = readyWithExtra(ControllerInfo())
        _ = run(&advertiser)
        _ = tick(&advertiser, 2_000)
        advertiser.controllerLost()
        advertiser.controllerReady(ControllerInfo(), now: at(2_500))
        let sent = run(&advertiser, now: at(2_500))
        #expect(sent.contains(.leSetAdvertisingData(combined.advertisingData)))
        #expect(advertiser.nextDeadline == at(4_500))
    }
}
