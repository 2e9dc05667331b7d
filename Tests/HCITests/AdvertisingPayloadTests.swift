import BluetoothCore
import Testing
@testable import HCI

@Suite struct AdvertisingPayloadTests {
    /// Apple's ANCS and AMS service UUIDs, as Apple publishes them.
    let ancs = BluetoothUUID("7905F431-B5CE-4E99-A40F-4B1E122D00D0")!
    let ams = BluetoothUUID("89D3502B-0F36-433A-8EF4-C502AD55F8DC")!

    @Test func shortNameFitsBesideFlagsAndANCS() {
        let payload = AdvertisingPayload.accessory(name: "Car", soliciting: [ancs, ams])
        // Flags, then AD type 0x15 with ANCS little-endian, then the name.
        #expect(payload.advertisingData == [0x02, 0x01, 0x06,
                                            0x11, 0x15, 0xD0, 0x00, 0x2D, 0x12, 0x1E, 0x4B, 0x0F, 0xA4,
                                            0x99, 0x4E, 0xCE, 0xB5, 0x31, 0xF4, 0x05, 0x79,
                                            0x04, 0x09, 0x43, 0x61, 0x72])
        // AMS does not fit beside ANCS (18 + 16 > 28 octets): the scan response has it.
        let response = AdvertisingData(payload.scanResponse)
        #expect(response.solicitedServiceUUIDs == [ams])
        #expect(response.name == nil)
    }

    @Test func longNameIsShortenedAndCompleteInTheScanResponse() {
        let payload = AdvertisingPayload.accessory(name: "NavigationNotifier", soliciting: [ancs, ams])
        #expect(payload.advertisingData.count == 31)
        let advertised = AdvertisingData(payload.advertisingData)
        #expect(advertised.flags == 0x06)
        #expect(advertised.solicitedServiceUUIDs == [ancs])
        #expect(advertised.shortName == "Navigati" && advertised.completeName == nil)
        let response = AdvertisingData(payload.scanResponse)
        #expect(response.completeName == "NavigationNotifier")
        // 20 octets of name leave 11: no room for AMS.
        #expect(response.solicitedServiceUUIDs.isEmpty)
        var merged = advertised
        merged.merge(payload.scanResponse)
        #expect(merged.name == "NavigationNotifier")
    }

    @Test func nameIsNeverCutInsideACharacter() {
        // Eight octets of room: "ÜüAux" is seven ("Ü", "ü" are two each); one more would cut an "ö".
        let payload = AdvertisingPayload.accessory(name: "ÜüAuxöö", soliciting: [ancs])
        let advertised = AdvertisingData(payload.advertisingData)
        #expect(advertised.shortName == "ÜüAux")
        #expect(advertised.malformedCount == 0)
        #expect(AdvertisingData(payload.scanResponse).completeName == "ÜüAuxöö")
    }

    @Test func nameTooLongForTheScanResponseIsShortenedThere() {
        let name = String(repeating: "x", count: 40)
        let payload = AdvertisingPayload.accessory(name: name, soliciting: [ancs])
        #expect(payload.scanResponse.count == 31)
        #expect(AdvertisingData(payload.scanResponse).shortName == String(repeating: "x", count: 29))
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
