import BluetoothCore
import Testing
@testable import HCI

/// Several payloads on one legacy advertising set: each on air in turn.
@Suite struct AdvertiserTurnsTests {
    let identity = StaticRandomAddress(text: "C0:11:22:33:44:55")!
    let settings = AdvertisingPayload.accessory(name: "Car", soliciting: [BluetoothUUID("7905F431-B5CE-4E99-A40F-4B1E122D00D0")!])
    let bridge = AdvertisingPayload.notifBridge(name: "Car", service: BluetoothUUID("D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C44")!)
    let fast = HCICommand.leSetAdvertisingParameters(interval: .fast, ownAddressType: .random, filterPolicy: .anyone)
    let slow = HCICommand.leSetAdvertisingParameters(interval: .slow, ownAddressType: .random, filterPolicy: .anyone)

    func run(_ advertiser: inout Advertiser, now: Instant) -> [HCICommand] {
        var sent: [HCICommand] = []
        while let command = advertiser.nextCommand(now: now), sent.count < 50 {
            sent.append(command)
            advertiser.completed(.complete([0]), now: now)
        }
        return sent
    }

    func onAir(_ payload: AdvertisingPayload) -> [HCICommand] {
        [.leSetAdvertisingData(payload.advertisingData), .leSetScanResponseData(payload.scanResponse)]
    }

    func ready() -> Advertiser {
        var advertiser = Advertiser()
        advertiser.setIdentity(identity)
        advertiser.start([settings, bridge], now: .zero)
        advertiser.controllerReady(ControllerInfo(), now: .zero)
        return advertiser
    }

    /// Fires every deadline up to `end`; the commands sent at each.
    func advance(_ advertiser: inout Advertiser, from start: Instant, to end: Instant) -> [(Int64, [HCICommand])] {
        var out: [(Int64, [HCICommand])] = []
        var now = start
        while let due = advertiser.nextDeadline, due <= end {
            now = max(now, due)
            advertiser.handleTimeout(now: now)
            out.append((now.milliseconds, run(&advertiser, now: now)))
        }
        return out
    }

    @Test func bothPayloadsGoOnAirInTurnWithoutStoppingTheAdvertising() {
        var advertiser = ready()
        #expect(run(&advertiser, now: .zero) == [.leSetRandomAddress(identity), fast] + onAir(settings) + [.leSetAdvertisingEnable(true)])
        #expect(advertiser.nextDeadline == Instant(milliseconds: 1_000))
        let turns = advance(&advertiser, from: .zero, to: Instant(milliseconds: 3_000))
        #expect(turns.map(\.0) == [1_000, 2_000, 3_000])
        #expect(turns.map(\.1) == [onAir(bridge), onAir(settings), onAir(bridge)])
        #expect(advertiser.state == .advertising(.fast))
        #expect(advertiser.payload == bridge)
    }

    @Test func aConnectionPausesTheTurnsAndTheLossResumesThem() {
        var advertiser = ready()
        _ = run(&advertiser, now: .zero)
        advertiser.peripheralConnected(ConnectionHandle(0x40))
        #expect(advertiser.nextDeadline == nil)
        advertiser.handleTimeout(now: Instant(milliseconds: 5_000))
        #expect(run(&advertiser, now: Instant(milliseconds: 5_000)).isEmpty)
        #expect(advertiser.state == .pausedByConnection)
        let gone = Instant(milliseconds: 60_000)
        advertiser.peripheralDisconnected(ConnectionHandle(0x40), now: gone)
        #expect(run(&advertiser, now: gone) == [.leSetAdvertisingEnable(true)])
        // The first turn a second after advertising resumed, not at once.
        #expect(advertiser.nextDeadline == Instant(milliseconds: 61_000))
        #expect(advance(&advertiser, from: gone, to: Instant(milliseconds: 61_000)).map(\.1) == [onAir(bridge)])
    }

    @Test func goingSlowAfterThirtySecondsKeepsTheTurns() {
        var advertiser = ready()
        _ = run(&advertiser, now: .zero)
        let steps = advance(&advertiser, from: .zero, to: Instant(milliseconds: 32_000))
        // At 30 s the slow interval, with the turn due at the same instant.
        let at30: [HCICommand] = steps.first(where: { $0.0 == 30_000 })?.1 ?? []
        #expect(at30.first == .leSetAdvertisingEnable(false))
        #expect(at30.contains(slow))
        #expect(at30.last == .leSetAdvertisingEnable(true))
        #expect(advertiser.state == .advertising(.slow))
        // Later turns are data only, at the slow interval.
        #expect(steps.suffix(2).map(\.1) == [onAir(bridge), onAir(settings)])
        #expect(steps.suffix(2).map(\.0) == [31_000, 32_000])
        #expect(steps.count == 32)
    }

    @Test func onePayloadHasNoTurns() {
        var advertiser = Advertiser()
        advertiser.start([bridge], now: .zero)
        advertiser.controllerReady(ControllerInfo(), now: .zero)
        _ = run(&advertiser, now: .zero)
        #expect(advertiser.nextDeadline == Instant(milliseconds: 30_000))
    }

    @Test func theNotifBridgePayloadCarriesTheServiceAndTheMarkedName() {
        let service = BluetoothUUID("D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C44")!
        let data = AdvertisingData(bridge.advertisingData)
        #expect(data.flags == 0x06)
        #expect(data.advertises(service))
        #expect(AdvertisingData(bridge.scanResponse).completeName == "Car NotifBdg")
        // A name too long is shortened; the marker always stays.
        let long = AdvertisingPayload.notifBridge(name: "The family van of the Smiths", service: service)
        #expect(long.scanResponse.count == 31)
        #expect(AdvertisingData(long.scanResponse).completeName == "The family van of th NotifBdg")
    }
}
