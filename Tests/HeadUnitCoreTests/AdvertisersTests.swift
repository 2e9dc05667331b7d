import BluetoothCore
@testable import HCI
import Testing
@testable import HeadUnitCore

@Suite struct AdvertisersTests {
    func report(_ n: UInt64, data: [UInt8] = [2, 0x01, 0x06]) -> AdvertisingReport {
        AdvertisingReport(kind: .connectableUndirected, address: BluetoothAddress(value: 0xC000_0000_0000 | n, kind: .random),
                          rssi: -60, data: data)
    }

    /// A flood of made-up addresses (thousands a second near some devices)
    /// must not grow the table without end: the oldest entries go.
    @Test func keepsAtMostItsCapacityOldestFirst() {
        var advertisers = Advertisers(capacity: 8)
        for n in 0..<10_000 { _ = advertisers.take(report(UInt64(n))) }
        #expect(advertisers.entries.count == 8)
        #expect(advertisers.order.count == 8)
        #expect(advertisers.all.map { $0.address.value & 0xFFFF } == (9_992..<10_000).map { UInt64($0) })
        #expect(Advertisers().capacity == Advertisers.defaultCapacity)
    }

    @Test func scanResponseStillMergesIntoARecentEntry() {
        var advertisers = Advertisers(capacity: 4)
        _ = advertisers.take(report(1))
        let name: [UInt8] = [5, 0x09] + Array("Anna".utf8)
        let merged = advertisers.take(AdvertisingReport(kind: .scanResponse, address: report(1).address, rssi: -60, data: name))
        #expect(merged?.data.name == "Anna")
        #expect(merged?.connectable == true)
        #expect(advertisers.entries.count == 1)
    }
}
