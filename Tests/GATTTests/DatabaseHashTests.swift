import Testing
import BluetoothCore
@testable import ATT
@testable import GATT

/// The example database of Core Vol 3 Part G Appendix B and its hash.
@Suite struct DatabaseHashTests {
    func exampleDatabase() -> GATTDatabase {
        let db = GATTDatabase(aesCMAC: aesCMAC)
        db.addService(BluetoothUUID(0x1800))
        db.addCharacteristic(BluetoothUUID(0x2A00), properties: [.read, .write], permissions: [.read, .write], value: Array("Example".utf8))
        db.addCharacteristic(BluetoothUUID(0x2A01), properties: .read, permissions: .read, value: [0, 0])
        db.addService(BluetoothUUID(0x1801))
        db.addCharacteristic(BluetoothUUID(0x2A05), properties: .indicate, permissions: [])
        db.addCharacteristic(BluetoothUUID(0x2B29), properties: [.read, .write], permissions: [.read, .write], value: [0])
        db.addCharacteristic(BluetoothUUID(0x2B2A), properties: .read, permissions: .read)
        db.addService(BluetoothUUID(0x1808))
        db.addInclude(service: AttributeHandleRange(0x14, 0x16), uuid: BluetoothUUID(0x180F))
        db.addCharacteristic(BluetoothUUID(0x2A18), properties: [.read, .indicate, .extendedProperties], permissions: .read)
        db.addDescriptor(BluetoothUUID(0x2900), permissions: .read, value: [0, 0])
        db.addService(BluetoothUUID(0x180F), primary: false)
        db.addCharacteristic(BluetoothUUID(0x2A19), properties: .read, permissions: .read, value: [100])
        return db
    }

    @Test func hashInputMatchesTheSpecification() {
        let expected = "010000280018020003280a0300002a04000328020500012a06000028011807000328200800052a090002290a0003280a0b00292b0c000328020d002a2b0e00002808180f000228140016000f1810000328a21100182a12000229130000290000140001280f1815000328021600192a"
        #expect(hexString(exampleDatabase().databaseHashInput()) == expected)
    }

    @Test func hashMatchesTheSpecification() {
        // F1CA2D48ECF58BAC8A8830BBB9FBA990, sent little-endian.
        let expected = Array(bytes("F1CA2D48ECF58BAC8A8830BBB9FBA990").reversed())
        #expect(exampleDatabase().databaseHash == expected)
    }

    @Test func serviceGroupsEndWhereTheNextServiceStarts() {
        let db = exampleDatabase()
        #expect(db.attribute(at: AttributeHandle(1))?.groupEnd == AttributeHandle(5))
        #expect(db.attribute(at: AttributeHandle(14))?.groupEnd == AttributeHandle(19))
        #expect(db.attribute(at: AttributeHandle(20))?.groupEnd == AttributeHandle(22))
        #expect(db.lastHandle == AttributeHandle(22))
    }
}
