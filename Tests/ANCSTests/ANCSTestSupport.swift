import BluetoothCore
@testable import ANCS

/// Bytes the way a phone sends them, built from readable parts.
enum Phone {
    static func notificationSource(_ event: EventID, flags: EventFlags = [], category: CategoryID,
                                   count: UInt8 = 1, uid: UInt32) -> [UInt8] {
        NotificationSourceEvent(eventID: event, flags: flags, category: category, categoryCount: count,
                                uid: NotificationUID(uid)).bytes
    }

    /// A GetNotificationAttributes response: command 0, UID, (id, u16 length, value)...
    static func notificationAttributes(uid: UInt32, _ attributes: [(NotificationAttributeID, String)]) -> [UInt8] {
        DataSourceResponse(attributes: attributes.map { .init(id: $0.0.rawValue, value: Array($0.1.utf8)) })
            .encoded(answering: .getNotificationAttributes(NotificationUID(uid), []))
    }

    /// A GetAppAttributes response: command 1, NUL-terminated app id, DisplayName.
    static func appAttributes(app: String, displayName: String) -> [UInt8] {
        DataSourceResponse(attributes: [.init(id: AppAttributeID.displayName.rawValue, value: Array(displayName.utf8))])
            .encoded(answering: .getAppAttributes(AppIdentifier(app), []))
    }

    /// Splits a response into notifications of at most `payload` bytes
    /// (ATT_MTU - 3), the first one `first` bytes long.
    static func fragments(_ bytes: [UInt8], payload: Int, first: Int? = nil) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var index = 0
        var size = first ?? payload
        while index < bytes.count {
            let end = min(bytes.count, index + size)
            out.append(Array(bytes[index..<end]))
            index = end
            size = payload
        }
        return out
    }
}

/// Drives an ANCSClient like its owner would, recording what it asks for.
final class ANCSHarness {
    let handle = ConnectionHandle(0x40)
    var now = Instant(milliseconds: 10_000)
    let client: ANCSClient
    /// Every action the client emitted, in order.
    private(set) var log: [ANCSAction] = []
    /// What the filter was asked about.
    var filterCalls: [ANCSNotification] = []

    /// The apps whose notifications the filter takes.
    let apps: Set<String>

    init(configuration: ANCSConfiguration = ANCSConfiguration(), appNames: AppNameCache = AppNameCache(),
         showing apps: Set<String> = ["com.google.Maps", "com.apple.Maps"]) {
        self.apps = apps
        client = ANCSClient(connection: handle, configuration: configuration, appNames: appNames)
    }

    /// The client's actions, the filter's questions answered as the owner
    /// does (and not logged: they are the owner's business).
    @discardableResult
    func drain() -> [ANCSAction] {
        var out: [ANCSAction] = []
        while let a = client.pollAction() {
            if case .askWantsText(let n) = a {
                filterCalls.append(n)
                client.textWanted(n.app.map { apps.contains($0.value) } ?? false, for: n.uid, now: now)
                continue
            }
            out.append(a)
        }
        log.append(contentsOf: out)
        return out
    }

    /// Everything written to the Control Point so far.
    var controlPointWrites: [[UInt8]] {
        log.compactMap { if case .writeControlPoint(_, let bytes) = $0 { return bytes } else { return nil } }
    }

    var events: [ANCSEvent] {
        log.compactMap { if case .event(let e) = $0 { return e } else { return nil } }
    }

    /// start → discovery → Data Source, then Notification Source subscribed.
    func startSession() {
        client.start(now: now)
        precondition(drain() == [.discover(handle)])
        client.discoveryCompleted(.found([.notificationSource, .controlPoint, .dataSource]), now: now)
        precondition(drain() == [.subscribe(handle, .dataSource)])
        client.subscribeCompleted(.dataSource, .done, now: now)
        precondition(drain() == [.subscribe(handle, .notificationSource)])
        client.subscribeCompleted(.notificationSource, .done, now: now)
        let started = drain()
        precondition(started.first == .event(.sessionStarted) && started.count == 2)
        // The opening liveness probe (UID 0xFFFFFFFF), answered as a phone
        // that shares its notifications does.
        guard case .writeControlPoint(_, let probe) = started[1], Array(probe.prefix(5)) == [0, 0xFF, 0xFF, 0xFF, 0xFF] else {
            preconditionFailure("no opening probe")
        }
        client.controlPointWriteCompleted(.attError(0xA2), now: now)
        precondition(drain().isEmpty)
        log.removeAll()
    }

    func source(_ bytes: [UInt8]) -> [ANCSAction] {
        client.notificationSourceReceived(bytes, now: now)
        return drain()
    }

    func data(_ bytes: [UInt8]) -> [ANCSAction] {
        client.dataSourceReceived(bytes, now: now)
        return drain()
    }

    func written(_ result: RemoteOperationResult = .done) -> [ANCSAction] {
        client.controlPointWriteCompleted(result, now: now)
        return drain()
    }

    func advance(milliseconds: Int64) -> [ANCSAction] {
        now = now.adding(milliseconds: milliseconds)
        if let deadline = client.nextDeadline, deadline <= now { client.handleTimeout(now: now) }
        return drain()
    }

    func write(_ command: ControlPointCommand) -> ANCSAction { .writeControlPoint(handle, command.bytes) }

    /// What the liveness probe writes.
    static let probe = ControlPointCommand.getNotificationAttributes(.probe, [NotificationAttributeRequest(.appIdentifier)])

    static func identify(_ uid: UInt32) -> ControlPointCommand {
        .getNotificationAttributes(NotificationUID(uid), [NotificationAttributeRequest(.appIdentifier)])
    }

    static func text(_ uid: UInt32, flags: EventFlags = [], configuration: ANCSConfiguration = ANCSConfiguration()) -> ControlPointCommand {
        .getNotificationAttributes(NotificationUID(uid), configuration.textRequest(flags: flags))
    }
}
