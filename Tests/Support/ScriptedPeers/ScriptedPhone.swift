import ANCS
import ATT
import BluetoothCore
import GATT
import NavigationNotifier

/// The phone's GATT side as an iPhone running the NavigationNotifier
/// Server app shows it (docs/PROTOCOL.md §1, §2): the NavigationNotifier
/// service, Service Changed, Current Time and ANCS, served from the GATT
/// module's database and server. It answers ATT PDUs with ATT PDUs; the
/// Control Point is played like iOS (Write Response, then the answer on the
/// Data Source cut to the ATT_MTU).
///
/// Like iOS, it can publish ANCS only once the link is bonded and announce
/// it with a Service Changed indication, and it can refuse ANCS with an
/// ATT error before bonding (0x05 Insufficient Authentication, 0x0F
/// Insufficient Encryption).
public final class ScriptedPhone {
    public struct Notification {
        public var app: String
        public var title: String
        public var message: String
        public var category: CategoryID

        public init(app: String, title: String, message: String, category: CategoryID = .location) {
            self.app = app
            self.title = title
            self.message = message
            self.category = category
        }
    }

    public struct Handles {
        public var serverName = AttributeHandle(0)
        public var pairedClientName = AttributeHandle(0)
        public var serviceChanged = AttributeHandle(0)
        public var currentTime = AttributeHandle(0)
        public var notificationSource = AttributeHandle(0)
        public var controlPoint = AttributeHandle(0)
        public var dataSource = AttributeHandle(0)
    }

    public let serverName: String
    /// The Device Name of its Generic Access service.
    public static let deviceName = "Anna’s iPhone"
    /// UNPAIRED, or the CLIENT NAME of the head unit the phone is paired with.
    public private(set) var pairedClientName: String
    public var notifications: [UInt32: Notification] = [:]
    public var appNames: [String: String] = ["com.google.Maps": "Google Maps", "com.apple.Music": "Music"]
    /// ANCS appears only after bonding, announced by Service Changed (iOS's habit).
    public let publishesANCSAfterBonding: Bool
    /// The ATT error for ANCS requests while the link is not bonded; nil serves them.
    public var ancsErrorBeforeBonding: UInt8?
    public private(set) var handles = Handles()
    public private(set) var mtu = 23
    /// The largest ATT_MTU the phone offers in the exchange.
    public var maximumMTU = 517
    public private(set) var bonded = false
    public private(set) var controlPointWrites: [[UInt8]] = []
    /// How often the head unit switched the Notification Source off (an
    /// ANCS client ending its subscriptions to start again).
    public private(set) var notificationSourceUnsubscriptions = 0
    public private(set) var requests: [UInt8] = []
    /// What the head unit's own GATT server sent the phone as its client
    /// (responses, indications), in order; indications are confirmed.
    public private(set) var fromHeadUnitServer: [[UInt8]] = []
    private var server: GATTServer

    public init(serverName: String = "Anna-iPhone-7F3A", pairedClientName: String = "UNPAIRED",
                publishesANCSAfterBonding: Bool = true) {
        self.serverName = serverName
        self.pairedClientName = pairedClientName
        self.publishesANCSAfterBonding = publishesANCSAfterBonding
        server = GATTServer(database: GATTDatabase())
        server = GATTServer(database: makeDatabase(withANCS: !publishesANCSAfterBonding))
    }

    private func makeDatabase(withANCS: Bool) -> GATTDatabase {
        let db = GATTDatabase()
        db.addService(BluetoothUUID(0x1801))
        handles.serviceChanged = db.addCharacteristic(BluetoothUUID(0x2A05), properties: [.indicate], permissions: [])
        db.addService(NavigationNotifierUUIDs.service)
        handles.serverName = db.addCharacteristic(NavigationNotifierUUIDs.serverName, properties: [.read], permissions: [.read],
                                                  value: Array(serverName.utf8))
        handles.pairedClientName = db.addCharacteristic(NavigationNotifierUUIDs.pairedClientName, properties: [.read, .write, .notify],
                                                        permissions: [.read, .write], value: Array(pairedClientName.utf8))
        db.addService(BluetoothUUID(0x1805))
        // 2026-11-22 08:15:30, Sunday.
        handles.currentTime = db.addCharacteristic(BluetoothUUID(0x2A2B), properties: [.read], permissions: [.read],
                                                   value: [0xEA, 0x07, 11, 22, 8, 15, 30, 7, 0, 0])
        // The name the owner gave the phone (Settings → General → About).
        db.addService(BluetoothUUID(0x1800))
        db.addCharacteristic(BluetoothUUID(0x2A00), properties: [.read], permissions: [.read], value: Array(ScriptedPhone.deviceName.utf8))
        if withANCS {
            db.addService(ANCSUUIDs.service)
            handles.notificationSource = db.addCharacteristic(ANCSUUIDs.notificationSource, properties: [.notify], permissions: [])
            handles.controlPoint = db.addCharacteristic(ANCSUUIDs.controlPoint, properties: [.write], permissions: [.write])
            handles.dataSource = db.addCharacteristic(ANCSUUIDs.dataSource, properties: [.notify], permissions: [])
        }
        return db
    }

    /// Whether the head unit enabled notifications or indications of a value.
    public func isSubscribed(_ valueHandle: AttributeHandle) -> Bool {
        !server.clientConfiguration(forValue: valueHandle).isEmpty
    }

    private var ancsRange: ClosedRange<UInt16>? {
        handles.notificationSource.value == 0 ? nil : (handles.notificationSource.value - 2)...(handles.dataSource.value + 1)
    }

    // MARK: - ATT

    /// Answers one ATT PDU from the head unit.
    public func receive(_ pdu: [UInt8]) -> [[UInt8]] {
        guard let opcode = pdu.first else { return [] }
        requests.append(opcode)
        switch opcode {
        case 0x02:  // Exchange MTU Request
            let clientMTU = pdu.count >= 3 ? Int(pdu[1]) | Int(pdu[2]) << 8 : 23
            mtu = max(23, min(clientMTU, maximumMTU))
            return [[0x03] + le16(UInt16(maximumMTU))]
        case 0x1E:  // Handle Value Confirmation
            return []
        case 0x01, 0x0B, 0x11, 0x13, 0x17, 0x19:  // the head unit's server answering the phone's requests
            fromHeadUnitServer.append(pdu)
            return []
        case 0x1B:  // Handle Value Notification from the head unit's server
            fromHeadUnitServer.append(pdu)
            return []
        case 0x1D:  // Handle Value Indication from the head unit's server
            fromHeadUnitServer.append(pdu)
            return [[0x1E]]
        case 0x12 where pdu.count >= 3:  // Write Request
            let handle = UInt16(pdu[1]) | UInt16(pdu[2]) << 8
            let value = Array(pdu[3...])
            if let code = refusal(handle) { return [error(0x12, handle, code)] }
            if handle == handles.pairedClientName.value { return writePairedClientName(value) }
            if handle == handles.controlPoint.value { return controlPoint(value) }
        default:
            break
        }
        if (0x08...0x0A).contains(opcode) || opcode == 0x12, pdu.count >= 3 {
            let handle = UInt16(pdu[1]) | UInt16(pdu[2]) << 8
            if opcode != 0x08, let code = refusal(handle) { return [error(opcode, handle, code)] }
        }
        let wasSubscribed = isSubscribed(handles.notificationSource)
        let answer = server.respond(to: pdu, mtu: mtu).map { [$0] } ?? []
        if wasSubscribed, !isSubscribed(handles.notificationSource) { notificationSourceUnsubscriptions += 1 }
        return answer
    }

    private func refusal(_ handle: UInt16) -> UInt8? {
        guard !bonded, let code = ancsErrorBeforeBonding, let range = ancsRange, range.contains(handle) else { return nil }
        return code
    }

    private func error(_ opcode: UInt8, _ handle: UInt16, _ code: UInt8) -> [UInt8] {
        [0x01, opcode] + le16(handle) + [code]
    }

    /// docs/PROTOCOL.md §1: UNPAIRED is always taken, another name only while unpaired.
    private func writePairedClientName(_ value: [UInt8]) -> [[UInt8]] {
        guard !value.isEmpty, value.count <= 32 else { return [error(0x12, handles.pairedClientName.value, 0x0D)] }
        let name = String(decoding: value, as: UTF8.self)
        guard name == "UNPAIRED" || pairedClientName == "UNPAIRED" || pairedClientName == name else {
            return [error(0x12, handles.pairedClientName.value, 0x80)]
        }
        pairedClientName = name
        server.database.setValue(value, at: handles.pairedClientName)
        return [[0x13]]
    }

    /// The Unpair button: PAIRED CLIENT NAME becomes UNPAIRED, notified if subscribed.
    public func unpair() -> [[UInt8]] {
        pairedClientName = "UNPAIRED"
        server.database.setValue(Array("UNPAIRED".utf8), at: handles.pairedClientName)
        guard isSubscribed(handles.pairedClientName) else { return [] }
        return [[0x1B] + le16(handles.pairedClientName.value) + Array("UNPAIRED".utf8)]
    }

    // MARK: - Bonding

    /// The phone takes the link as bonded (ANCS requests are served from now on).
    public func bondingCompleted() {
        bonded = true
    }

    /// iOS publishes ANCS some time after bonding and indicates Service
    /// Changed over the new range, if the head unit subscribed to it.
    public func publishANCS() -> [[UInt8]] {
        guard handles.notificationSource.value == 0 else { return [] }
        let before = server.database.lastHandle.value
        var next = GATTServer(database: makeDatabase(withANCS: true))
        for (handle, value) in server.clientConfigurations { next.restoreClientConfiguration(value, at: handle) }
        server = next
        guard isSubscribed(handles.serviceChanged) else { return [] }
        return [[0x1D] + le16(handles.serviceChanged.value) + le16(before + 1) + le16(0xFFFF)]
    }

    // MARK: - ANCS

    /// A Notification Source notification (nil when the head unit has not subscribed).
    public func notificationSource(_ event: EventID, uid: UInt32, category: CategoryID = .location,
                                   flags: EventFlags = []) -> [UInt8]? {
        guard isSubscribed(handles.notificationSource) else { return nil }
        let bytes = NotificationSourceEvent(eventID: event, flags: flags, category: category, categoryCount: 1,
                                            uid: NotificationUID(uid)).bytes
        return [0x1B] + le16(handles.notificationSource.value) + bytes
    }

    /// Posts (or changes) a notification and tells the head unit.
    public func post(_ uid: UInt32, _ n: Notification, event: EventID = .added, flags: EventFlags = []) -> [UInt8]? {
        notifications[uid] = n
        return notificationSource(event, uid: uid, category: n.category, flags: flags)
    }

    public func remove(_ uid: UInt32) -> [UInt8]? {
        guard let n = notifications.removeValue(forKey: uid) else { return nil }
        return notificationSource(.removed, uid: uid, category: n.category)
    }

    /// A Control Point command: Write Response, then the Data Source answer.
    private func controlPoint(_ command: [UInt8]) -> [[UInt8]] {
        controlPointWrites.append(command)
        let cp = handles.controlPoint.value
        guard let id = command.first else { return [error(0x12, cp, 0xA1)] }
        var response: [UInt8]
        switch id {
        case 0:  // GetNotificationAttributes
            guard command.count >= 5 else { return [error(0x12, cp, 0xA1)] }
            let uid = UInt32(command[1]) | UInt32(command[2]) << 8 | UInt32(command[3]) << 16 | UInt32(command[4]) << 24
            guard let n = notifications[uid] else { return [error(0x12, cp, 0xA2)] }
            response = Array(command[0..<5])
            var i = 5
            while i < command.count {
                let attribute = command[i]
                i += 1
                var maxLength = Int.max
                if (1...3).contains(attribute), i + 1 < command.count {
                    maxLength = Int(command[i]) | Int(command[i + 1]) << 8
                    i += 2
                }
                let text: String
                switch attribute {
                case 0: text = n.app
                case 1: text = n.title
                case 3: text = n.message
                case 5: text = "20261122T071500"
                default: text = ""
                }
                let bytes = Array(text.utf8.prefix(maxLength))
                response += [attribute] + le16(UInt16(bytes.count)) + bytes
            }
        case 1:  // GetAppAttributes: the app's display name
            guard let end = command.dropFirst().firstIndex(of: 0) else { return [error(0x12, cp, 0xA1)] }
            let app = String(decoding: command[1..<end], as: UTF8.self)
            response = Array(command[0...end])
            for attribute in command[(end + 1)...] {
                let name = Array((appNames[app] ?? app).utf8)
                response += [attribute] + le16(UInt16(name.count)) + name
            }
        default:
            return [error(0x12, cp, 0xA1)]
        }
        var out: [[UInt8]] = [[0x13]]
        var offset = 0
        while offset < response.count {
            let end = min(offset + mtu - 3, response.count)
            out.append([0x1B] + le16(handles.dataSource.value) + Array(response[offset..<end]))
            offset = end
        }
        return out
    }

    private func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
}
