import XCTest
import BluetoothCore
@testable import ATT
@testable import GATT
@testable import NotifBridge

/// The NotifBridge service in the head unit's database, driven through a
/// real GATT bearer as an iPhone would at the smallest MTU.
final class NotifBridgeServiceTests: XCTestCase {
    func testTheServiceHasTheRightCharacteristics() {
        let db = GATTDatabase(deviceName: "Head Unit")
        let handles = db.addNotifBridgeService()
        XCTAssertEqual(db.attribute(at: handles.service)?.value, NotifBridgeUUIDs.service.fullLittleEndian)
        func properties(_ value: AttributeHandle) -> UInt8? {
            db.attribute(at: AttributeHandle(value.value - 1))?.value.first
        }
        // Write (0x08) + Write Without Response (0x04); Indicate (0x20) + Read (0x02).
        XCTAssertEqual(properties(handles.keyExchange), 0x0C)
        XCTAssertEqual(properties(handles.notifications), 0x0C)
        XCTAssertEqual(properties(handles.receipts), 0x22)
        XCTAssertEqual(db.attribute(at: handles.keyExchange)?.type, NotifBridgeUUIDs.keyExchange)
        XCTAssertEqual(db.attribute(at: handles.notifications)?.type, NotifBridgeUUIDs.notifications)
        XCTAssertEqual(db.attribute(at: handles.receipts)?.type, NotifBridgeUUIDs.receipts)
        XCTAssertEqual(db.attribute(at: handles.receiptsConfiguration)?.type, GATTUUID.clientCharacteristicConfiguration)
        XCTAssertEqual(handles.characteristic(forValue: handles.keyExchange), .keyExchange)
        XCTAssertEqual(handles.characteristic(forValue: handles.notifications), .notifications)
        XCTAssertNil(handles.characteristic(forValue: handles.receipts))
        XCTAssertEqual(db.lastHandle, handles.receiptsConfiguration, "the service ends with the CCCD")
    }

    /// An iPhone at MTU 23 subscribes, keys, and sends one 220-byte chunk
    /// value as Prepare Write + Execute Write; the acks and receipts go back
    /// as indications.
    func testAPhoneAtTheSmallestMTUGetsThrough() throws {
        let db = GATTDatabase(deviceName: "Head Unit")
        let handles = db.addNotifBridgeService()
        let bearer = GATTBearer(handle: ConnectionHandle(0x40), database: db)
        bearer.server.linkEncrypted = true
        let receiver = Receiver()
        let link = NotifBridgeLink(handles: handles, receiver: receiver)
        let phone = TestPhone()
        let now = Instant(milliseconds: 1_000)
        var indicated: [[UInt8]] = []
        var events: [NotifBridgeEvent] = []

        /// One ATT PDU from the phone; the link pumps; indications are
        /// confirmed at once, key files stored.
        func deliver(_ pdu: ATTPDU) -> [UInt8]? {
            bearer.receive(pdu.encode())
            var response: [UInt8]? = nil
            while true {
                let outputs = link.pump(bearer, now: now)
                for output in outputs {
                    switch output {
                    case .indicate: XCTFail("indications go to the bearer")
                    case .storeKeys: receiver.keysStored(ok: true)
                    case .event(let e): events.append(e)
                    }
                }
                guard let sent = bearer.pollTransmit(now: now) else {
                    if outputs.isEmpty { break }
                    continue
                }
                if sent[0] == 0x1D {
                    indicated.append(Array(sent[3...]))
                    bearer.receive([0x1E])
                } else {
                    response = sent
                }
            }
            return response
        }

        XCTAssertEqual(deliver(.writeRequest(handles.receiptsConfiguration, value: [0x02, 0x00])), [0x13])
        XCTAssertEqual(indicated.map { String(decoding: $0, as: UTF8.self) }, ["--START--", "NB-RECEIVER-READY-1", "--END--"])
        for frame in [phone.prepare(exchange: 1, receipt: 101), phone.activate(exchange: 1, receipt: 201)] {
            for value in frameValues(frame, maxValue: 20) {
                XCTAssertNil(deliver(.writeCommand(handles.keyExchange, value: value)))
            }
        }
        XCTAssertNotNil(receiver.keyRing.newest)
        XCTAssertEqual(frames(indicated), ["NB-RECEIVER-READY-1", Harness.receipt(101), Harness.receipt(201)])
        indicated = []

        let envelope = phone.envelope(TestPhone.event("add", id: 1, sentAt: 10), exchange: 1, receipt: 51)
        for (n, value) in TestPhone.wrapped(envelope, firstChunk: 1).enumerated() {
            // Every value as Prepare Writes of MTU − 5 bytes, then Execute.
            var offset = 0
            while offset < value.count {
                let part = Array(value[offset..<min(offset + 18, value.count)])
                let answer = deliver(.prepareWriteRequest(handles.notifications, offset: UInt16(offset), value: part))
                XCTAssertEqual(answer, ATTPDU.prepareWriteResponse(handles.notifications, offset: UInt16(offset), value: part).encode())
                offset += 18
            }
            let before = indicated.count
            XCTAssertEqual(deliver(.executeWriteRequest(flags: 0x01)), [0x19])
            XCTAssertEqual(indicated[before], Array("NBA1".utf8) + Array(value[4..<20]), "chunk \(n) acknowledged")
        }
        guard case .add(let n)? = events.first else { return XCTFail("no notification") }
        XCTAssertEqual(n.title, "Turn left")
        XCTAssertEqual(n.sourceIdentifier, "com.google.Maps")
        XCTAssertEqual(frames(indicated), [Harness.receipt(51)])
    }

    func testTheLinkFollowsTheSubscriptionAndTheMTU() {
        let db = GATTDatabase(deviceName: "Head Unit")
        let handles = db.addNotifBridgeService()
        let bearer = GATTBearer(handle: ConnectionHandle(0x40), database: db)
        bearer.server.linkEncrypted = true
        let receiver = Receiver()
        let link = NotifBridgeLink(handles: handles, receiver: receiver)
        let now = Instant(milliseconds: 1_000)
        bearer.receive(ATTPDU.exchangeMTURequest(clientRxMTU: 185).encode())
        bearer.receive(ATTPDU.writeRequest(handles.receiptsConfiguration, value: [0x02, 0x00]).encode())
        XCTAssertEqual(link.pump(bearer, now: now), [])
        XCTAssertTrue(receiver.isSubscribed)
        XCTAssertEqual(receiver.mtu, 185)
        bearer.receive(ATTPDU.writeRequest(handles.receiptsConfiguration, value: [0x00, 0x00]).encode())
        _ = link.pump(bearer, now: now)
        XCTAssertFalse(receiver.isSubscribed)
        // A chunk while unsubscribed is taken, but its ack has nowhere to go.
        while bearer.pollTransmit(now: now) != nil {}
        bearer.receive(ATTPDU.writeCommand(handles.notifications, value: TestPhone.chunkID(1) + FrameToken.start).encode())
        XCTAssertEqual(link.pump(bearer, now: now), [])
        XCTAssertNil(bearer.pollTransmit(now: now))
    }

    /// The reverse frames among indications (acks left out), as text.
    private func frames(_ values: [[UInt8]]) -> [String] {
        var assembler = FrameAssembler(channel: "test", capacity: 4096)
        var out: [String] = []
        for value in values where !ChunkAck.isAck(value) {
            if case .frame(let frame) = assembler.take(value[...]) { out.append(String(decoding: frame, as: UTF8.self)) }
        }
        return out
    }
}
