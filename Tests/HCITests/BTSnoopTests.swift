import Testing
@testable import HCI

@Suite struct BTSnoopTests {
    @Test func fileHeaderIsBtsnoopVersion1H4() {
        #expect(BTSnoop.fileHeader == [0x62, 0x74, 0x73, 0x6E, 0x6F, 0x6F, 0x70, 0x00, 0, 0, 0, 1, 0, 0, 0x03, 0xEA])
    }

    @Test func recordCarriesLengthsFlagsTimestampAndTheH4Packet() {
        let reset = HCICommand.reset().packet
        let record = BTSnoop.record(reset, direction: .sent, unixMicroseconds: 0)
        #expect(Array(record[0..<8]) == [0, 0, 0, 4, 0, 0, 0, 4])
        #expect(Array(record[8..<12]) == [0, 0, 0, 2]) // command, host to controller
        #expect(Array(record[16..<24]) == [0x00, 0xDC, 0xDD, 0xB3, 0x0F, 0x2F, 0x80, 0x00])
        #expect(Array(record[24...]) == [0x01, 0x03, 0x0C, 0x00])
        let acl = ACLPacket(handle: .init(1), boundary: .firstFlushable, data: [0]).packet
        #expect(BTSnoop.record(acl, direction: .received, unixMicroseconds: 0)[11] == 1)
        let event = HCIPacket(type: .event, body: [0x0E, 0x00])
        #expect(BTSnoop.record(event, direction: .received, unixMicroseconds: 0)[11] == 3)
    }
}
