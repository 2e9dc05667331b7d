import BluetoothCore
import Testing
@testable import HCI

@Suite struct AdvertisingPayloadTests {
    /// Apple's ANCS and AMS service UUIDs, as Apple publishes them.
    let ancs = BluetoothUUID("7905F431-B5CE-4E99-A40F-4B1E122D00D0")!
    let ams = BluetoothUUID("89D3502B-0F36-433A-8EF4-C502AD55F8DC")!

    let bridgeService = BluetoothUUID("D5E12B7A-7D8E-4F12-9B5C-3F0A1E6D8C44")!

    @Test func flagsAndANCSAdvertisedTheNameAndAMSInTheScanResponse() {
        let payload = AdvertisingPayload.accessory(name: "Car", soliciting: [ancs, ams])
        // Flags, then AD type 0x15 with ANCS little-endian; nothing else fits a second 128-bit UUID.
        #expect(payload.advertisingData == [0x02, 0x01, 0x06,
                                            0x11, 0x15, 0xD0, 0x00, 0x2D, 0x12, 0x1E, 0x4B, 0x0F, 0xA4,
                                            0x99, 0x4E, 0xCE, 0xB5, 0x31, 0xF4, 0x05, 0x79])
        // The name once, in the scan response, and AMS where it fits beside it.
        #expect(payload.scanResponse == [0x04, 0x09, 0x43, 0x61, 0x72,
                                         0x11, 0x15, 0xDC, 0xF8, 0x55, 0xAD, 0x02, 0xC5, 0xF4, 0x8E,
                                         0x3A, 0x43, 0x36, 0x0F, 0x2B, 0x50, 0xD3, 0x89])
    }

    @Test func aLongNameIsCompleteInTheScanResponseAndNowhereElse() {
        let payload = AdvertisingPayload.accessory(name: "NavigationNotifier", soliciting: [ancs, ams])
        let advertised = AdvertisingData(payload.advertisingData)
        #expect(advertised.flags == 0x06)
        #expect(advertised.solicitedServiceUUIDs == [ancs])
        #expect(advertised.name == nil, "one name per payload: a passive report never shows another")
        let response = AdvertisingData(payload.scanResponse)
        #expect(response.completeName == "NavigationNotifier")
        // 20 octets of name leave 11: no room for AMS.
        #expect(response.solicitedServiceUUIDs.isEmpty)
    }

    @Test func nameIsNeverCutInsideACharacter() {
        // The combined payload leaves 11 octets of name: "NotifBdg Ü" is ten, one more would cut the "ö".
        let payload = AdvertisingPayload.combined(name: "NotifBdg Üö", soliciting: [ancs], service: bridgeService)
        let response = AdvertisingData(payload.scanResponse)
        #expect(response.shortName == "NotifBdg Ü")
        #expect(response.malformedCount == 0)
    }

    @Test func nameTooLongForTheScanResponseIsShortenedThere() {
        let name = String(repeating: "x", count: 40)
        let payload = AdvertisingPayload.accessory(name: name, soliciting: [ancs])
        #expect(payload.scanResponse.count == 31)
        #expect(AdvertisingData(payload.scanResponse).shortName == String(repeating: "x", count: 29))
    }

    /// One payload for a controller with one advertising set: flags (3) and
    /// ANCS solicited (18) in the advertising data, NotifBridge's service
    /// (18) and 11 bytes of name (AD type 0x08, shortened) in the scan
    /// response: 21 and 31 octets.
    @Test func combinedPayloadBytes() {
        let payload = AdvertisingPayload.combined(name: "NotifBdg HU-3F9A21", soliciting: [ancs, ams], service: bridgeService)
        #expect(payload.advertisingData == [0x02, 0x01, 0x06,
                                            0x11, 0x15, 0xD0, 0x00, 0x2D, 0x12, 0x1E, 0x4B, 0x0F, 0xA4,
                                            0x99, 0x4E, 0xCE, 0xB5, 0x31, 0xF4, 0x05, 0x79])
        #expect(payload.scanResponse == [0x11, 0x07, 0x44, 0x8C, 0x6D, 0x1E, 0x0A, 0x3F, 0x5C, 0x9B,
                                         0x12, 0x4F, 0x8E, 0x7D, 0x7A, 0x2B, 0xE1, 0xD5,
                                         0x0C, 0x08, 0x4E, 0x6F, 0x74, 0x69, 0x66, 0x42, 0x64, 0x67, 0x20, 0x48, 0x55])
        var merged = AdvertisingData(payload.advertisingData)
        merged.merge(payload.scanResponse)
        #expect(merged.name == "NotifBdg HU")
        #expect(merged.advertises(bridgeService) && merged.solicitedServiceUUIDs == [ancs])
        // A name of 11 bytes or fewer goes whole.
        let short = AdvertisingPayload.combined(name: "NotifBdg 42", soliciting: [ancs], service: bridgeService)
        #expect(AdvertisingData(short.scanResponse).completeName == "NotifBdg 42")
    }

    @Test func bothSetPayloadsCarryTheSameNameTheSameWay() {
        let name = "NotifBdg HU-3F9A21"
        let settings = AdvertisingPayload.accessory(name: name, soliciting: [ancs, ams])
        let bridge = AdvertisingPayload.offering(bridgeService, name: name)
        #expect(Array(settings.scanResponse.prefix(20)) == [0x13, 0x09] + Array(name.utf8))
        #expect(bridge.scanResponse == [0x13, 0x09] + Array(name.utf8))
        #expect(bridge.advertisingData == [0x02, 0x01, 0x06, 0x11, 0x07, 0x44, 0x8C, 0x6D, 0x1E, 0x0A, 0x3F, 0x5C, 0x9B,
                                           0x12, 0x4F, 0x8E, 0x7D, 0x7A, 0x2B, 0xE1, 0xD5])
    }

    @Test func payloadOverThirtyOneOctetsIsRefused() {
        #expect(AdvertisingPayload(advertising: [.completeName(String(repeating: "y", count: 30))], scanResponse: []) == nil)
        #expect(AdvertisingPayload(advertising: [.completeName(String(repeating: "y", count: 29))], scanResponse: []) != nil)
    }

    @Test func commandsPadTheDataToThirtyOneOctets() {
        let command = HCICommand.leSetAdvertisingData([0x02, 0x01, 0x06])
        #expect(command.opcode == HCIOpcode(0x2008))
        #expect(command.parameters == [0x03, 0x02, 0x01, 0x06] + [UInt8](repeating: 0, count: 28))
        #expect(HCICommand.leSetScanResponseData([]).parameters == [0x00] + [UInt8](repeating: 0, count: 31))
    }

    @Test func advertisingParametersLayout() {
        let command = HCICommand.leSetAdvertisingParameters(interval: .slow, ownAddressType: .random,
                                                            filterPolicy: .connectionsFromAcceptList)
        #expect(command.opcode == HCIOpcode(0x2006))
        #expect(command.parameters == [0xF4, 0x00, 0xF4, 0x00, 0x00, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0x07, 0x02])
    }

    @Test func intervalsAreApplesFigures() {
        #expect(AdvertisingInterval.fast.description == "20 ms")
        #expect(AdvertisingInterval.slow.description == "152.5 ms")
        #expect(AdvertisingInterval(units: 338).description == "211.25 ms")
    }
}

@Suite struct StaticRandomAddressTests {
    @Test func topTwoBitsAreForcedFromRandomBytes() {
        let address = StaticRandomAddress(randomBytes: [0x55, 0x44, 0x33, 0x22, 0x11, 0x00])
        #expect(address?.address == BluetoothAddress("C0:11:22:33:44:55", kind: .random))
        #expect(address?.address.isStaticRandom == true)
    }

    @Test func forbiddenPatternsAndOtherAddressesAreRefused() {
        // Random part all zeros or all ones.
        #expect(StaticRandomAddress(randomBytes: [0, 0, 0, 0, 0, 0]) == nil)
        #expect(StaticRandomAddress(randomBytes: [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]) == nil)
        #expect(StaticRandomAddress(randomBytes: [1, 2, 3]) == nil)
        // A resolvable private address (top bits 01) and a public address.
        #expect(StaticRandomAddress(BluetoothAddress("4A:11:22:33:44:55", kind: .random)!) == nil)
        #expect(StaticRandomAddress(BluetoothAddress("C0:11:22:33:44:55", kind: .public)!) == nil)
        #expect(StaticRandomAddress(text: "C0:11:22:33:44:55") != nil)
        #expect(StaticRandomAddress(text: "C0:11:22:33:44") == nil)
    }

    @Test func setRandomAddressCarriesTheBytesLittleEndian() {
        let address = StaticRandomAddress(text: "C0:11:22:33:44:55")!
        #expect(HCICommand.leSetRandomAddress(address).parameters == [0x55, 0x44, 0x33, 0x22, 0x11, 0xC0])
    }
}
