import AMS
import ANCS
import ATT
import BluetoothCore
import HCI
import HPKE
import JSON
import Notifications
import ScriptedPeers
import XCTest
@testable import HeadUnitCore
@testable import NotifBridge

/// NotifBridge through the whole core: a phone connected to the head unit
/// (we are the peripheral) subscribes, keys and sends envelopes sealed with
/// the HPKE module as a phone would (X-Wing encapsulation to the prepared
/// key), over ATT writes on the scripted link.
final class NotifBridgeCoreTests: XCTestCase {
    /// The phone's side: its X-Wing key pair, encapsulation, and envelopes.
    struct BridgePhone {
        let seed = [UInt8](repeating: 0x42, count: 32)
        let identifier = "9A4C1E2B-0000-4000-8000-0000000000AA"
        let session = "5D1F0C3A-1111-4222-8333-444455556666"
        let exchange = "00000000-0000-4000-8000-0000000000E1"
        let publicKey: [UInt8]
        let encapsulatedKey: [UInt8]
        let exporter: HPKEExporter
        var info: [UInt8] { Array("XWing-Version1-\(identifier)".utf8) }

        init() throws {
            publicKey = try XWingPrivateKey(seed: seed).publicKey
            let (secret, enc) = try XWing.encapsulate(publicKey: publicKey, eseed: [UInt8](repeating: 0x17, count: 64))
            encapsulatedKey = enc
            exporter = HPKEExporter(sharedSecret: secret, info: Array("XWing-Version1-\(identifier)".utf8))
        }

        func prepare(receipt: Int) -> [UInt8] {
            JSONValue.object([
                JSONMember("phase", .string("prepare")), JSONMember("exchangeID", .string(exchange)),
                JSONMember("receiptID", .string(BridgePhone.uuid(receipt))),
                JSONMember("publicKey", .string(Base64.encode(publicKey))),
                JSONMember("privateKeySeed", .string(Base64.encode(seed))),
            ]).encoded
        }

        func activate(receipt: Int) -> [UInt8] {
            JSONValue.object([
                JSONMember("phase", .string("activate")), JSONMember("exchangeID", .string(exchange)),
                JSONMember("receiptID", .string(BridgePhone.uuid(receipt))),
                JSONMember("encapsulatedKey", .string(Base64.encode(encapsulatedKey))),
                JSONMember("identifier", .string(identifier)), JSONMember("ciphersuite", .string("XWing")),
                JSONMember("version", .string("Version1")),
            ]).encoded
        }

        func key(_ direction: String) -> [UInt8] {
            exporter.export(context: info + Array((direction + session).utf8), length: 32)
        }

        /// An `add` event of `app`, sealed in an envelope with `receipt`.
        func add(app: String, id: Int, title: String, body: String, receipt: Int) throws -> [UInt8] {
            let event = JSONValue.object([
                JSONMember("version", .number(JSONNumber(3))), JSONMember("id", .string(BridgePhone.uuid(500 + id))),
                JSONMember("kind", .string("add")), JSONMember("sentAt", .number(JSONNumber(800_000_000 + id))),
                JSONMember("notification", .object([
                    JSONMember("sourceIdentifier", .string(app)), JSONMember("notificationIdentifier", .string("n\(id)")),
                    JSONMember("title", .string(title)), JSONMember("body", .string(body)),
                ])),
            ]).encoded
            let sealed = try AES256GCM.seal(key: key("-HostToAccessory-"), nonce: [UInt8](repeating: UInt8(id), count: 12), plaintext: event)
            return NotificationEnvelope(sessionID: SessionID(BluetoothUUID(session)!), sealed: sealed,
                                        receiptID: ReceiptID(BluetoothUUID(BridgePhone.uuid(receipt))!)).encoded
        }

        static func uuid(_ n: Int) -> String { "00000000-0000-4000-8000-" + hex(UInt64(n), digits: 12).uppercased() }
    }

    var rig: CoreRig!
    var phone: BridgePhone!
    var handles: NotifBridgeHandles { rig.core.notifBridge!.handles }
    var chunk = 0

    override func setUpWithError() throws {
        phone = try BridgePhone()
        rig = connectedRig()
    }

    /// An iPhone paired from Settings: NotifBridge is served on encrypted links only.
    func connectedRig(stored: StoredState = accessoryState, settings: CoreSettings = CoreSettings()) -> CoreRig {
        let (rig, iPhone) = try! settingsRig(stored: stored, settings: settings) { $0.phone.maximumMTU = 247 }
        try! pairFromSettings(rig, iPhone)
        return rig
    }

    // MARK: the phone's writes

    func write(_ handle: AttributeHandle, _ value: [UInt8]) {
        rig.phoneSends([0x12, UInt8(handle.value & 0xFF), UInt8(handle.value >> 8)] + value)
    }

    func subscribe() { write(handles.receiptsConfiguration, [0x02, 0x00]) }

    func sendKeyPacket(_ packet: [UInt8]) {
        for value in frameValues(packet, maxValue: 200) { write(handles.keyExchange, value) }
    }

    /// The envelope's chunks; the key file each opened envelope asks for
    /// (its delivery is remembered) is stored, as the shell does at once.
    func sendEnvelope(_ envelope: [UInt8]) {
        let writesBefore = keyWrites.count
        defer { for _ in writesBefore..<keyWrites.count { storeKeys(ok: true) } }
        for value in frameValues(envelope, maxValue: 200) {
            chunk += 1
            let id = [UInt8](repeating: 0xC0, count: 14) + [UInt8(chunk >> 8), UInt8(chunk & 0xFF)]
            write(handles.notifications, Array("NBW1".utf8) + id + value)
        }
    }

    // MARK: what came back

    /// The reverse frames the head unit indicated, reassembled (NBA1 acks left out).
    var reverseFrames: [[UInt8]] {
        var frames: [[UInt8]] = []
        var current: [UInt8]?
        for pdu in rig.phone.fromHeadUnitServer where pdu.first == 0x1D {
            let value = Array(pdu.dropFirst(3))
            if value.count == 20, value.starts(with: Array("NBA1".utf8)) { continue }
            if value == Array("--START--".utf8) {
                current = []
            } else if value == Array("--END--".utf8) {
                if let frame = current { frames.append(frame) }
                current = nil
            } else {
                current? += value
            }
        }
        return frames
    }

    var receipts: [String] {
        reverseFrames.compactMap { frame in
            guard let json = try? JSONParser.parse(frame), (try? json.string("kind")) == "notifbridge.accepted.v1" else { return nil }
            return try? json.string("id")
        }
    }

    /// The reverse commands, opened with the phone's AccessoryToHost key.
    var commands: [String] {
        reverseFrames.compactMap { frame in
            guard let envelope = try? NotificationEnvelope.parse(frame),
                  let plain = try? AES256GCM.open(key: phone.key("-AccessoryToHost-"), sealed: envelope.sealed),
                  let json = try? JSONParser.parse(plain) else { return nil }
            return try? json.string("kind")
        }
    }

    var keyWrites: [[UInt8]] {
        rig.writes.compactMap { if case .notifBridgeKeys(let bytes) = $0 { return bytes } else { return nil } }
    }

    func storeKeys(ok: Bool) {
        rig.core.keysStored(ok: ok, now: rig.now)
        rig.settle()
    }

    /// Subscribes, prepares and activates, the key file stored each time.
    func keyed() {
        subscribe()
        sendKeyPacket(phone.prepare(receipt: 1))
        storeKeys(ok: true)
        sendKeyPacket(phone.activate(receipt: 2))
        storeKeys(ok: true)
    }

    // MARK: tests

    func testSubscriptionGetsTheReadinessFrame() {
        subscribe()
        XCTAssertEqual(reverseFrames, [Array("NB-RECEIVER-READY-1".utf8)])
    }

    /// The key packets carry a private key's seed: a phone on a link that
    /// is not encrypted is told to pair first, and nothing reaches the receiver.
    func testNothingIsTakenOnALinkThatIsNotEncrypted() throws {
        let (plain, _) = try settingsRig(stored: accessoryState) { $0.phone.maximumMTU = 247 }
        rig = plain
        rig.phoneConnectsToUs()
        write(handles.keyExchange, Array("--START--".utf8))
        let refusal: [UInt8] = [0x01, 0x12, UInt8(handles.keyExchange.value & 0xFF), UInt8(handles.keyExchange.value >> 8), 0x05]
        XCTAssertEqual(rig.phone.fromHeadUnitServer.last, refusal, "Insufficient Authentication")
        rig.phoneSends([0x12, UInt8(handles.receiptsConfiguration.value & 0xFF), UInt8(handles.receiptsConfiguration.value >> 8), 0x02, 0x00])
        sendKeyPacket(phone.prepare(receipt: 1))
        XCTAssertEqual(keyWrites.count, 0)
        XCTAssertEqual(receipts, [])
    }

    func testKeyFileIsStoredBeforeTheReceiptAndAFailedWriteWithholdsIt() {
        subscribe()
        sendKeyPacket(phone.prepare(receipt: 1))
        XCTAssertEqual(keyWrites.count, 1)
        XCTAssertEqual(Array(keyWrites[0].prefix(4)), Array("NBKR".utf8))
        XCTAssertEqual(receipts, [], "no receipt before the key file is stored")
        storeKeys(ok: false)
        XCTAssertEqual(receipts, [], "a failed write sends no receipt")
        // The phone sends the packet again; this time the file is written.
        sendKeyPacket(phone.prepare(receipt: 1))
        XCTAssertEqual(keyWrites.count, 2)
        storeKeys(ok: true)
        XCTAssertEqual(receipts, [BridgePhone.uuid(1)])
        sendKeyPacket(phone.activate(receipt: 2))
        XCTAssertEqual(receipts, [BridgePhone.uuid(1)])
        storeKeys(ok: true)
        XCTAssertEqual(receipts, [BridgePhone.uuid(1), BridgePhone.uuid(2)])
    }

    func testMapsIsShownAndDisplayedIsSentBack() throws {
        keyed()
        sendEnvelope(try phone.add(app: "com.google.Maps", id: 1, title: "200 m", body: "Turn left onto Main St", receipt: 10))
        XCTAssertEqual(rig.core.notifications.navigation?.message, "Turn left onto Main St")
        XCTAssertEqual(rig.shownNotifications, ["200 m"])
        XCTAssertEqual(receipts.last, BridgePhone.uuid(10))
        XCTAssertEqual(commands, ["displayed"])
        // Every chunk was acknowledged with its id.
        let acks = rig.phone.fromHeadUnitServer.filter { $0.first == 0x1D && $0.count == 23 && Array($0[3..<7]) == Array("NBA1".utf8) }
        XCTAssertEqual(acks.count, chunk)
    }

    /// A forwarded Maps instruction is not ANCS's: an ANCS event does not
    /// make the client expect updates from it, so ANCS is not re-subscribed
    /// after 10 minutes of silence, and no ANCS session end takes it away.
    func testAForwardedMapsInstructionOutlivesANCSSilence() throws {
        keyed()
        sendEnvelope(try phone.add(app: "com.google.Maps", id: 1, title: "200 m", body: "Turn left onto Main St", receipt: 10))
        XCTAssertEqual(rig.shownNotifications, ["200 m"])
        if !rig.phone.isSubscribed(rig.phone.handles.notificationSource) { rig.phoneSends(rig.phone.publishANCS()) }
        XCTAssertTrue(rig.phone.isSubscribed(rig.phone.handles.notificationSource), "ANCS runs on the same link")
        // Any ANCS event (a chat, dropped) sets what the ANCS client expects.
        rig.phoneSends(rig.phone.post(7, .init(app: "net.whatsapp.WhatsApp", title: "Bob", message: "hi", category: .social)))
        let unsubscriptions = rig.phone.notificationSourceUnsubscriptions
        rig.advance(milliseconds: 11 * 60_000)
        XCTAssertEqual(rig.phone.notificationSourceUnsubscriptions, unsubscriptions, "ANCS was not re-subscribed")
        XCTAssertEqual(rig.core.notifications.navigation?.message, "Turn left onto Main St")
    }

    func testAChatIsDroppedAndItsTextGoesNowhere() throws {
        keyed()
        sendEnvelope(try phone.add(app: "net.whatsapp.WhatsApp", id: 2, title: "Bob", body: "the door code is 4711", receipt: 11))
        XCTAssertEqual(receipts.last, BridgePhone.uuid(11), "accepted, so the phone does not resend it")
        XCTAssertEqual(rig.core.notifications.shown.count, 0)
        XCTAssertEqual(rig.core.notifications.droppedTotal, 1)
        XCTAssertEqual(commands, [], "nothing displayed")
        for event in rig.events {
            guard case .notification(let n) = event else { continue }
            XCTAssertEqual(n.action, .dropped)
            XCTAssertNil(n.title)
            XCTAssertNil(n.message)
        }
        XCTAssertTrue(rig.events.contains { if case .notification(let n) = $0 { return n.action == .dropped } else { return false } })
        XCTAssertFalse(rig.events.contains { "\($0)".contains("4711") || "\($0)".contains("Bob") })
    }

    func testARestartKeepsDecryptingWithTheStoredKeys() throws {
        keyed()
        var stored = accessoryState
        stored.notifBridgeKeys = keyWrites.last
        rig = connectedRig(stored: stored)
        chunk = 0
        subscribe()
        sendEnvelope(try phone.add(app: "com.apple.Music", id: 3, title: "Song", body: "Artist", receipt: 12))
        XCTAssertEqual(receipts.last, BridgePhone.uuid(12))
        XCTAssertEqual(rig.core.notifications.music.map(\.title), ["Song"])
    }

    /// The head unit restarts with the key file the shell stored: the same
    /// envelope again is acknowledged and not shown (it was, before).
    func testAnEnvelopeReplayedAfterARestartIsNotShownAgain() throws {
        keyed()
        let envelope = try phone.add(app: "com.google.Maps", id: 8, title: "400 m", body: "Turn left onto Oak St", receipt: 18)
        sendEnvelope(envelope)
        XCTAssertEqual(rig.shownNotifications, ["400 m"])
        var stored = accessoryState
        stored.notifBridgeKeys = keyWrites.last
        rig = connectedRig(stored: stored)
        chunk = 0
        subscribe()
        sendEnvelope(envelope)
        XCTAssertEqual(rig.shownNotifications, [], "not shown again")
        XCTAssertNil(rig.core.notifications.navigation)
        XCTAssertEqual(receipts.last, BridgePhone.uuid(18), "acknowledged, so the phone stops sending it")
    }

    func testARestartBetweenPrepareAndActivateKeepsThePreparedKey() throws {
        subscribe()
        sendKeyPacket(phone.prepare(receipt: 1))
        storeKeys(ok: true)
        var stored = accessoryState
        stored.notifBridgeKeys = keyWrites.last
        rig = connectedRig(stored: stored)
        chunk = 0
        subscribe()
        sendKeyPacket(phone.activate(receipt: 2))
        storeKeys(ok: true)
        XCTAssertEqual(receipts, [BridgePhone.uuid(2)], "the activate found its key pair after the restart")
        sendEnvelope(try phone.add(app: "com.google.Maps", id: 6, title: "300 m", body: "Exit right", receipt: 15))
        XCTAssertEqual(rig.core.notifications.navigation?.message, "Exit right")
    }

    func testADamagedKeyFileStartsWithoutKeys() throws {
        keyed()
        var damaged = keyWrites.last!
        damaged[10] ^= 0xFF
        var stored = accessoryState
        stored.notifBridgeKeys = damaged
        rig = connectedRig(stored: stored)
        chunk = 0
        subscribe()
        sendEnvelope(try phone.add(app: "com.google.Maps", id: 4, title: "1 km", body: "Keep right", receipt: 13))
        XCTAssertEqual(receipts, [], "waits for a key, unacknowledged")
        XCTAssertEqual(rig.core.notifications.shown.count, 0)
    }

    func testTheLinkGoingTakesTheForwardedNotificationsWithIt() throws {
        keyed()
        sendEnvelope(try phone.add(app: "com.google.Maps", id: 5, title: "50 m", body: "Turn right", receipt: 14))
        XCTAssertNotNil(rig.core.notifications.navigation)
        rig.dropLink()
        XCTAssertNil(rig.core.notifications.navigation)
    }

    func testALinkTheHeadUnitMadeDoesNotCarryNotifBridge() {
        // The pairing routine connects to the advertising phone: we are the central.
        rig = CoreRig(stored: accessoryState)
        rig.start()
        rig.advance(milliseconds: 1_000)
        XCTAssertTrue(rig.isLinkUp)
        XCTAssertEqual(rig.core.links.values.map(\.role), [.central])
        subscribe()
        sendKeyPacket(phone.prepare(receipt: 1))
        XCTAssertEqual(keyWrites, [])
        XCTAssertEqual(reverseFrames, [])
        XCTAssertTrue(rig.isLinkUp)
    }

    func testOffMeansNoServiceInTheDatabase() {
        var settings = CoreSettings()
        settings.notifBridge = false
        rig = connectedRig(settings: settings)
        XCTAssertNil(rig.core.notifBridge)
        // The Settings accessory alone (and GhostDrop's extra, AdvertisementTests): no NotifBridge service.
        let advertisement = rig.core.advertisement(named: "Car")
        XCTAssertEqual(advertisement.sets, [AdvertisingPayload.accessory(name: "Car", soliciting: [ANCSUUIDs.service, AMSUUIDs.service])])
        XCTAssertEqual(advertisement.combined, advertisement.sets[0])
        XCTAssertFalse(AdvertisingData(advertisement.extra?.advertisingData ?? []).advertises(NotifBridgeUUIDs.service))
        let uuid = NotifBridgeUUIDs.service.fullLittleEndian
        let off = primaryServices()
        XCTAssertFalse(off.isEmpty, "the services were listed")
        XCTAssertFalse(off.indices.contains { Array(off[$0...].prefix(16)) == uuid })

        // On by default: the same discovery finds it.
        rig = connectedRig()
        // The picker's marker leads the one name.
        let bridge = rig.core.advertisement(named: "NotifBdg 3F9A21").sets[1]
        XCTAssertEqual(AdvertisingData(bridge.scanResponse).completeName, "NotifBdg 3F9A21")
        XCTAssertTrue(AdvertisingData(bridge.advertisingData).advertises(NotifBridgeUUIDs.service))
        let on = primaryServices()
        XCTAssertTrue(on.indices.contains { Array(on[$0...].prefix(16)) == uuid })
    }

    /// Primary service discovery by the phone: every Read By Group Type answer, joined.
    func primaryServices() -> [UInt8] {
        var start: UInt16 = 1
        var found: [UInt8] = []
        for _ in 0..<10 {
            rig.phoneSends([0x10, UInt8(start & 0xFF), UInt8(start >> 8), 0xFF, 0xFF, 0x00, 0x28])
            guard let answer = rig.phone.fromHeadUnitServer.last, answer.first == 0x11, answer.count > 2 else { break }
            let last = answer[(answer.count - Int(answer[1]))...]
            found += answer
            let end = UInt16(last[last.startIndex + 2]) | UInt16(last[last.startIndex + 3]) << 8
            if end == 0xFFFF { break }
            start = end + 1
        }
        return found
    }
}
