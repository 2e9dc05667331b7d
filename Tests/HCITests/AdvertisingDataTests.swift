import BluetoothCore
import Testing
@testable import HCI

@Suite struct AdvertisingDataTests {
    let service = BluetoothUUID("AB312B45-A8A1-4BCE-97E7-7D3D97FB541E")!

    @Test func parsesEveryKnownField() {
        let data = AdvertisingData.structure(0x01, [0x06])
            + AdvertisingData.structure(0x03, [0x0F, 0x18, 0x0A, 0x18])
            + AdvertisingData.structure(0x05, [0x78, 0x56, 0x34, 0x12])
            + AdvertisingData.structure(0x07, service.fullLittleEndian)
            + AdvertisingData.structure(0x08, Array("iPho".utf8))
            + AdvertisingData.structure(0x09, Array("iPhone (Anna)".utf8))
            + AdvertisingData.structure(0x0A, [0xF4])
            + AdvertisingData.structure(0xFF, [0x4C, 0x00, 0x10, 0x05])
        let ad = AdvertisingData(data)
        #expect(ad.flags == 0x06)
        #expect(ad.serviceUUIDs == [BluetoothUUID(0x180F), BluetoothUUID(0x180A), BluetoothUUID(uuid32: 0x1234_5678), service])
        #expect(ad.serviceListComplete)
        #expect(ad.advertises(service))
        #expect(ad.shortName == "iPho" && ad.completeName == "iPhone (Anna)" && ad.name == "iPhone (Anna)")
        #expect(ad.txPower == -12)
        #expect(ad.manufacturerData.count == 1 && ad.manufacturerData[0].company == 0x004C && ad.manufacturerData[0].data == [0x10, 0x05])
        #expect(ad.malformedCount == 0)
    }

    @Test func incompleteListsCount() {
        let ad = AdvertisingData(AdvertisingData.structure(0x06, service.fullLittleEndian))
        #expect(ad.advertises(service) && !ad.serviceListComplete)
    }

    @Test func structureRunningPastTheEndIsSkipped() {
        let good = AdvertisingData.structure(0x01, [0x06])
        let ad = AdvertisingData(good + [0x10, 0x09, 0x41, 0x42])
        #expect(ad.flags == 0x06)
        #expect(ad.name == nil)
        #expect(ad.malformedCount == 1)
    }

    @Test func uuidListWithAStrayByteIsSkipped() {
        let ad = AdvertisingData(AdvertisingData.structure(0x07, service.fullLittleEndian + [0x00])
                                 + AdvertisingData.structure(0x09, Array("x".utf8)))
        #expect(ad.serviceUUIDs.isEmpty)
        #expect(ad.name == "x")
        #expect(ad.malformedCount == 1)
    }

    @Test func trailingZeroPaddingIsFine() {
        let ad = AdvertisingData(AdvertisingData.structure(0x01, [0x06]) + [0, 0, 0])
        #expect(ad.flags == 0x06 && ad.malformedCount == 0)
    }

    @Test func emptyAndDegenerateInputs() {
        #expect(AdvertisingData([]) == AdvertisingData())
        #expect(AdvertisingData([0x01]).malformedCount == 1) // length 1 with no type byte
        #expect(AdvertisingData([0x01, 0x01]).flags == nil) // flags with no value
        #expect(AdvertisingData([0x02, 0x0A, 0x01, 0x02]).malformedCount == 1)
    }

    @Test func invalidUTF8NameDoesNotFail() {
        let ad = AdvertisingData(AdvertisingData.structure(0x09, [0x41, 0xFF, 0xC3]))
        #expect(ad.name?.hasPrefix("A") == true)
    }

    @Test func scanResponseMergesIntoAdvertisingData() {
        var ad = AdvertisingData(AdvertisingData.structure(0x07, service.fullLittleEndian))
        ad.merge(AdvertisingData.structure(0x09, Array("iPhone".utf8)))
        #expect(ad.advertises(service) && ad.name == "iPhone")
    }

    @Test func everyTruncationOfAValidPayloadIsSafe() {
        let data = AdvertisingData.structure(0x01, [0x06]) + AdvertisingData.structure(0x07, service.fullLittleEndian)
            + AdvertisingData.structure(0x09, Array("iPhone (Anna)".utf8))
        for n in 0...data.count {
            _ = AdvertisingData(Array(data.prefix(n)))
        }
    }

    @Test func advertisingReportEventDecodes() {
        var params: [UInt8] = [0x02, 0x01, 0x00, 0x01]
        params += [0x55, 0x44, 0x33, 0x22, 0x11, 0x40]
        let ad = AdvertisingData.structure(0x01, [0x06])
        params += [UInt8(ad.count)] + ad + [0xC8]
        let event = HCIEvent(body: [0x3E, UInt8(params.count)] + params)
        guard case .le(.advertisingReports(let reports))? = event else {
            Issue.record("not decoded")
            return
        }
        #expect(reports.count == 1)
        #expect(reports[0].address == BluetoothAddress("40:11:22:33:44:55", kind: .random))
        #expect(reports[0].rssi == -56 && reports[0].kind == .connectableUndirected && reports[0].data == ad)
        // Truncated at every byte: never decodes to garbage, never traps.
        for n in 0..<params.count {
            #expect(HCIEvent(body: [0x3E, UInt8(n)] + Array(params.prefix(n))) == nil || n == 0)
        }
    }
}
