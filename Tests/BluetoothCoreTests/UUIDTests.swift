import Testing
@testable import BluetoothCore

@Suite struct UUIDTests {
    @Test func shortAliasRoundTrips() {
        let uuid = BluetoothUUID(0x180A)
        #expect(uuid.shortValue == 0x180A)
        #expect(uuid == BluetoothUUID("0000180A-0000-1000-8000-00805F9B34FB"))
        #expect(uuid.compactLittleEndian == [0x0A, 0x18])
        #expect(uuid.description == "180A")
    }

    @Test func longUUIDTextAndWireForm() throws {
        let uuid = try #require(BluetoothUUID("AB312B45-A8A1-4BCE-97E7-7D3D97FB541E"))
        #expect(uuid.shortValue == nil)
        #expect(uuid.description == "AB312B45-A8A1-4BCE-97E7-7D3D97FB541E")
        let wire = uuid.compactLittleEndian
        #expect(wire.count == 16)
        #expect(wire.first == 0x1E && wire.last == 0xAB)
        #expect(BluetoothUUID(littleEndian: wire[...]) == uuid)
    }

    @Test func rejectsBadText() {
        #expect(BluetoothUUID("12345") == nil)
        #expect(BluetoothUUID("zz") == nil)
    }
}
