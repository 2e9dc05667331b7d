import BluetoothCore
import Testing
@testable import HCI

/// The advertisement on two advertising sets where the controller has them,
/// its combined payload on one set or on legacy advertising otherwise.
@Suite struct AdvertisingSetsTests {
    static let ancs = BluetoothUUID("7905F431-B5CE-4E99-A40F-4B1E122D00D0")!
    static let bridgeService = BluetoothUUID("D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C44")!
    let identity = StaticRandomAddress(text: "C0:11:22:33:44:55")!
    let settings = AdvertisingPayload.accessory(name: "NotifBdg Car", soliciting: [Self.ancs])
    let bridge = AdvertisingPayload.offering(Self.bridgeService, name: "NotifBdg Car")
    let combined = AdvertisingPayload.combined(name: "NotifBdg Car", soliciting: [Self.ancs], service: Self.bridgeService)
    var advertisement: Advertisement { Advertisement(sets: [settings, bridge], combined: combined) }
    let set0 = AdvertisingSetHandle(0), set1 = AdvertisingSetHandle(1)

    /// A controller whose Supported Commands list the set commands (octet
    /// 36, bits 1–5 and 7) and extended scanning and initiating (octet 37,
    /// bits 5–7: without them the head unit advertises the legacy way,
    /// LECommandFormTests), and that said at bring-up it has `count` sets
    /// (nil: it could not say).
    static func withSets(_ count: Int? = 2) -> ControllerInfo {
        var info = ControllerInfo()
        info.supportedCommands = [UInt8](repeating: 0, count: 64)
        info.supportedCommands[36] = 0b1011_1110
        info.supportedCommands[37] = 0b1110_0000
        info.advertisingSets = count
        return info
    }

    /// Sends and answers every command.
    func run(_ advertiser: inout Advertiser, now: Instant = .zero) -> [HCICommand] {
        var sent: [HCICommand] = []
        while let command = advertiser.nextCommand(now: now), sent.count < 50 {
            sent.append(command)
            advertiser.completed(.complete([0]), now: now)
        }
        return sent
    }

    /// `advertisement` (this one by default) asked for on a controller described by `info`.
    func ready(_ info: ControllerInfo, _ advertisement: Advertisement? = nil) -> Advertiser {
        var advertiser = Advertiser()
        advertiser.setIdentity(identity)
        advertiser.start(advertisement ?? self.advertisement, now: .zero)
        advertiser.controllerReady(info, now: .zero)
        return advertiser
    }

    func parameters(_ set: AdvertisingSetHandle, _ interval: AdvertisingInterval = .fast) -> HCICommand {
        .leSetExtendedAdvertisingParameters(set, interval: interval, ownAddressType: .random, filterPolicy: .anyone)
    }

    @Test func twoSetsEachWithItsPayloadFromTheIdentityAddress() {
        var advertiser = ready(Self.withSets(4))
        let sent = run(&advertiser)
        #expect(sent == [
            parameters(set0), parameters(set1),
            .leSetAdvertisingSetRandomAddress(set0, identity), .leSetAdvertisingSetRandomAddress(set1, identity),
            .leSetExtendedAdvertisingData(set0, settings.advertisingData), .leSetExtendedScanResponseData(set0, settings.scanResponse),
            .leSetExtendedAdvertisingData(set1, bridge.advertisingData), .leSetExtendedScanResponseData(set1, bridge.scanResponse),
            .leEnableAdvertisingSets([set0, set1]),
        ])
        // Never a legacy advertising command beside the set commands (Core Vol 4 Part E 3.1.1).
        #expect(!sent.contains { [.leSetRandomAddress, .leSetAdvertisingParameters, .leSetAdvertisingData,
                                   .leSetScanResponseData, .leSetAdvertisingEnable].contains($0.opcode) })
        #expect(advertiser.commands == .sets(4))
        #expect(advertiser.payloads == [settings, bridge])
        #expect(advertiser.state == .advertising(.fast))
        #expect(advertiser.nextDeadline == Instant(milliseconds: 30_000), "nothing to do but go slow: no turns")
    }

    @Test func oneSetCarriesTheCombinedPayload() {
        var advertiser = ready(Self.withSets(1))
        #expect(run(&advertiser) == [
            parameters(set0), .leSetAdvertisingSetRandomAddress(set0, identity),
            .leSetExtendedAdvertisingData(set0, combined.advertisingData), .leSetExtendedScanResponseData(set0, combined.scanResponse),
            .leEnableAdvertisingSets([set0]),
        ])
        #expect(advertiser.payloads == [combined])
    }

    @Test func legacyAdvertisingCarriesTheCombinedPayload() {
        var advertiser = ready(ControllerInfo())
        #expect(run(&advertiser) == [
            .leSetRandomAddress(identity),
            .leSetAdvertisingParameters(interval: .fast, ownAddressType: .random, filterPolicy: .anyone),
            .leSetAdvertisingData(combined.advertisingData), .leSetScanResponseData(combined.scanResponse),
            .leSetAdvertisingEnable(true),
        ])
        #expect(advertiser.commands == .legacy)
    }

    @Test func aControllerThatCannotCountItsSetsAdvertisesTheLegacyWay() {
        var advertiser = ready(Self.withSets(nil))
        #expect(advertiser.commands == .legacy)
        #expect(run(&advertiser).first == .leSetRandomAddress(identity))
        #expect(advertiser.payloads == [combined])
    }

    @Test func aConnectionToOneSetDisablesTheOtherAndTheLossBringsBothBack() {
        var advertiser = ready(Self.withSets(2))
        _ = run(&advertiser)
        advertiser.peripheralConnected(ConnectionHandle(0x40))
        advertiser.peripheralSecured(ConnectionHandle(0x40))
        #expect(advertiser.state == .pausedByConnection)
        // The controller ended the set the phone connected to; the other still advertises.
        #expect(run(&advertiser) == [.leDisableAllAdvertisingSets()])
        #expect(run(&advertiser).isEmpty)
        advertiser.peripheralDisconnected(ConnectionHandle(0x40), now: Instant(milliseconds: 40_000))
        #expect(run(&advertiser, now: Instant(milliseconds: 40_000)) == [.leEnableAdvertisingSets([set0, set1])])
        #expect(advertiser.state == .advertising(.fast))
    }

    @Test func aStrangerOnOneSetGetsBothEnabledAgainUntilALinkIsSecured() {
        var advertiser = ready(Self.withSets(2))
        _ = run(&advertiser)
        advertiser.peripheralConnected(ConnectionHandle(0x40))
        // The set it connected to ended, the other still advertises: both off, then both on.
        #expect(run(&advertiser) == [.leDisableAllAdvertisingSets(), .leEnableAdvertisingSets([set0, set1])])
        #expect(advertiser.state == .advertising(.fast))
        advertiser.peripheralSecured(ConnectionHandle(0x40))
        #expect(run(&advertiser) == [.leDisableAllAdvertisingSets()])
        #expect(advertiser.state == .pausedByConnection)
    }

    @Test func goingSlowChangesEverySetsParameters() {
        var advertiser = ready(Self.withSets(2))
        _ = run(&advertiser)
        advertiser.handleTimeout(now: Instant(milliseconds: 30_000))
        #expect(run(&advertiser, now: Instant(milliseconds: 30_000)) == [
            .leDisableAllAdvertisingSets(), parameters(set0, .slow), parameters(set1, .slow), .leEnableAdvertisingSets([set0, set1]),
        ])
    }

    @Test func nothingIsSentWhileNothingIsAdvertised() {
        var advertiser = Advertiser()
        advertiser.controllerReady(Self.withSets(1), now: .zero)
        #expect(advertiser.nextCommand(now: .zero) == nil)
    }

    // MARK: - The commands' bytes (Core Vol 4 Part E 7.8.52–7.8.58)

    @Test func extendedParametersForALegacyADVIND() {
        let c = HCICommand.leSetExtendedAdvertisingParameters(AdvertisingSetHandle(1), interval: .slow, ownAddressType: .random,
                                                              filterPolicy: .connectionsFromAcceptList)
        #expect(c.opcode.value == 0x2036)
        #expect(c.parameters == [0x01, // handle
                                 0x13, 0x00, // connectable, scannable, legacy PDUs
                                 0xF4, 0x00, 0x00, 0xF4, 0x00, 0x00, // 244 × 0.625 ms, min and max
                                 0x07, // channels 37, 38, 39
                                 0x01, // own address: random
                                 0x00, 0, 0, 0, 0, 0, 0, // no peer
                                 0x02, // connections from the accept list only
                                 0x7F, // TX power: no preference
                                 0x01, 0x00, 0x01, // LE 1M, no skip, LE 1M
                                 0x00, 0x00]) // SID 0, no scan request notifications
    }

    @Test func setRandomAddressDataEnableAndCount() {
        #expect(HCICommand.leSetAdvertisingSetRandomAddress(AdvertisingSetHandle(1), identity)
            == HCICommand(HCIOpcode(0x2035), [0x01, 0x55, 0x44, 0x33, 0x22, 0x11, 0xC0]))
        #expect(HCICommand.leSetExtendedAdvertisingData(AdvertisingSetHandle(0), [0x02, 0x01, 0x06])
            == HCICommand(HCIOpcode(0x2037), [0x00, 0x03, 0x01, 0x03, 0x02, 0x01, 0x06]))
        #expect(HCICommand.leSetExtendedScanResponseData(AdvertisingSetHandle(1), [])
            == HCICommand(HCIOpcode(0x2038), [0x01, 0x03, 0x01, 0x00]))
        #expect(HCICommand.leEnableAdvertisingSets([AdvertisingSetHandle(0), AdvertisingSetHandle(1)])
            == HCICommand(HCIOpcode(0x2039), [0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00]))
        #expect(HCICommand.leDisableAllAdvertisingSets() == HCICommand(HCIOpcode(0x2039), [0x00, 0x00]))
    }

    @Test func supportedCommandsOctet36SaysWhetherThereAreSets() {
        #expect(Self.withSets().supportsAdvertisingSets)
        var missingEnable = Self.withSets()
        missingEnable.supportedCommands[36] &= ~(1 << 5)
        #expect(!missingEnable.supportsAdvertisingSets)
        #expect(!ControllerInfo().supportsAdvertisingSets)
    }
}
