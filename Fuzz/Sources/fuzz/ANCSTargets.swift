import BluetoothCore
@testable import ANCS

/// The ANCS client in a running session: Notification Source events, Data
/// Source fragments (raw, or starting with the header of the request in
/// flight), Control Point write results, time, actions, Service Changed and
/// link loss. GATT discovery and subscriptions succeed at once.
///
/// Properties: one Control Point write at a time; text is only ever asked
/// for notifications the filter accepted; dropped notifications carry no
/// text; fetched text keeps to the configured lengths; the session holds at
/// most `maximumNotifications`.
enum ANCSNotificationSourceTarget {
    static let target = FuzzTarget(name: "ancs-notification-source", run: run, seeds: seeds)

    static let handle = ConnectionHandle(0x0040)

    static var configuration: ANCSConfiguration {
        var c = ANCSConfiguration()
        c.maximumNotifications = 8
        return c
    }

    final class Driver {
        var client: ANCSClient!
        var accepted: Set<NotificationUID> = []
        var writesOutstanding = 0
        var lastWrite: [UInt8] = []
        var now = Instant(milliseconds: 10_000)

        init() {
            client = ANCSClient(connection: handle, configuration: configuration, appNames: AppNameCache(capacity: 4))
        }

        func drain() {
            while let action = client.pollAction() {
                switch action {
                case .discover: client.discoveryCompleted(.found(Set(ANCSCharacteristic.allCases)), now: now)
                case .subscribe(_, let c): client.subscribeCompleted(c, .done, now: now)
                case .unsubscribe(_, let c): client.unsubscribeCompleted(c, .done, now: now)
                case .writeControlPoint(_, let bytes):
                    writesOutstanding += 1
                    invariant(writesOutstanding == 1, "a Control Point write while another is outstanding")
                    lastWrite = bytes
                    checkPrivacy(bytes)
                case .askWantsText(let notification):
                    let wanted = notification.app?.value.hasSuffix("Maps") ?? false
                    if wanted { accepted.insert(notification.uid) }
                    client.textWanted(wanted, for: notification.uid, now: now)
                case .event(let event):
                    check(event)
                }
            }
            invariant(client.notifications.count <= configuration.maximumNotifications,
                      "\(client.notifications.count) notifications kept, more than \(configuration.maximumNotifications)")
        }

        /// Title, Subtitle or Message asked only for a notification the filter wants.
        func checkPrivacy(_ bytes: [UInt8]) {
            guard bytes.first == CommandID.getNotificationAttributes.rawValue, bytes.count >= 5 else { return }
            let uid = NotificationUID(UInt32(bytes[1]) | UInt32(bytes[2]) << 8 | UInt32(bytes[3]) << 16 | UInt32(bytes[4]) << 24)
            let asksForText = bytes.dropFirst(5).contains { (1...3).contains($0) }
            invariant(!asksForText || accepted.contains(uid), "text asked for notification \(uid), which the filter did not accept")
        }

        func check(_ event: ANCSEvent) {
            switch event {
            case .notificationFetched(let n):
                invariant(accepted.contains(n.uid), "fetched a notification the filter did not accept")
                invariant((n.title?.utf8.count ?? 0) <= Int(configuration.titleMaxLength)
                          && (n.subtitle?.utf8.count ?? 0) <= Int(configuration.subtitleMaxLength)
                          && (n.message?.utf8.count ?? 0) <= Int(configuration.messageMaxLength), "text longer than asked for")
            case .notificationDropped(let n):
                invariant(n.title == nil && n.subtitle == nil && n.message == nil, "a dropped notification carries text")
            default:
                break
            }
        }

        /// The response header of the request in flight.
        var header: [UInt8] {
            switch lastWrite.first {
            case CommandID.getNotificationAttributes.rawValue?: return Array(lastWrite.prefix(5))
            case CommandID.getAppAttributes.rawValue?:
                guard let end = lastWrite.firstIndex(of: 0) else { return lastWrite }
                return Array(lastWrite[...end])
            default: return []
            }
        }
    }

    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let driver = Driver()
        let client = driver.client!
        client.start(now: driver.now)
        driver.drain()
        var operations = 0
        while !input.isAtEnd, operations < 400 {
            operations += 1
            let op = input.byte()
            switch op & 0x07 {
            case 0, 1, 2:
                client.notificationSourceReceived(op & 0x80 == 0 ? input.bytes(8) : input.chunk(), now: driver.now)
            case 3:
                client.dataSourceReceived(input.chunk(), now: driver.now)
            case 4:
                client.dataSourceReceived(driver.header + input.chunk(), now: driver.now)
            case 5:
                driver.writesOutstanding = 0
                let result: RemoteOperationResult
                switch input.byte() & 0x03 {
                case 0: result = .done
                case 1: result = .attError(input.byte())
                case 2: result = .failed
                default: result = .value(input.chunk())
                }
                client.controlPointWriteCompleted(result, now: driver.now)
            case 6:
                driver.now = driver.now.adding(milliseconds: Int64(input.u16()) * 100)
                if let deadline = client.nextDeadline, deadline <= driver.now { client.handleTimeout(now: driver.now) }
            default:
                switch input.byte() % 6 {
                case 0:
                    let all = client.notifications
                    let uid = all.isEmpty ? NotificationUID(input.u32()) : all[Int(input.byte()) % all.count].uid
                    client.performAction(input.bool() ? .positive : .negative, on: uid, now: driver.now)
                case 1: client.setNotificationsExpected(input.bool(), now: driver.now)
                case 2: client.serviceChanged(now: driver.now)
                case 3: client.stop(now: driver.now)
                case 4:
                    client.disconnected(now: driver.now)
                    driver.writesOutstanding = 0
                default: client.start(now: driver.now)
                }
            }
            driver.drain()
        }
    }

    // MARK: seeds

    static func source(_ event: EventID, _ category: CategoryID, uid: UInt32, flags: EventFlags = []) -> [UInt8] {
        [0] + NotificationSourceEvent(eventID: event, flags: flags, category: category, categoryCount: 1,
                                      uid: NotificationUID(uid)).bytes
    }

    /// A Data Source response cut to an MTU of 23 (20-byte notifications).
    static func dataSource(_ bytes: [UInt8]) -> [UInt8] {
        var s = Script()
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + 20)
            s.byte(3)
            s.chunk(Array(bytes[index..<end]))
            index = end
        }
        return s.bytes
    }

    static func appIdentifier(uid: UInt32, _ app: String) -> [UInt8] {
        DataSourceResponse(attributes: [.init(id: 0, value: Array(app.utf8))])
            .encoded(answering: .getNotificationAttributes(NotificationUID(uid), []))
    }

    static func text(uid: UInt32, title: String, message: String, labels: Bool = false) -> [UInt8] {
        var attributes: [DataSourceResponse.Attribute] = [.init(id: 1, value: Array(title.utf8)), .init(id: 2, value: []),
                                                          .init(id: 3, value: Array(message.utf8)),
                                                          .init(id: 5, value: Array("20240501T081500".utf8))]
        if labels { attributes += [.init(id: 6, value: Array("Go".utf8)), .init(id: 7, value: Array("Clear".utf8))] }
        return DataSourceResponse(attributes: attributes).encoded(answering: .getNotificationAttributes(NotificationUID(uid), []))
    }

    static let written: [UInt8] = [5, 0]

    static func seeds() -> [(String, [UInt8])] {
        let navigation = CategoryID(8)
        let maps = source(.added, navigation, uid: 1) + written + dataSource(appIdentifier(uid: 1, "com.apple.Maps"))
            + written + dataSource(text(uid: 1, title: "In 300 m", message: "Turn right onto Main Street"))
        let appName = DataSourceResponse(attributes: [.init(id: 0, value: Array("Maps".utf8))])
            .encoded(answering: .getAppAttributes(AppIdentifier("com.apple.Maps"), []))
        var preExisting: [UInt8] = []
        for uid in UInt32(10)..<UInt32(20) {
            preExisting += source(.added, CategoryID(4), uid: uid, flags: .preExisting) + written
                + dataSource(appIdentifier(uid: uid, "com.example.Mail"))
        }
        return [
            ("maps-fetched", maps),
            ("maps-fetched-with-app-name", maps + written + dataSource(appName)),
            ("maps-modified-and-removed", maps + source(.modified, navigation, uid: 1) + written
                + dataSource(text(uid: 1, title: "In 100 m", message: "Turn right")) + source(.removed, navigation, uid: 1)),
            ("dropped", source(.added, CategoryID(4), uid: 2) + written + dataSource(appIdentifier(uid: 2, "com.example.Mail"))),
            ("pre-existing-flood", preExisting),
            ("actions", source(.added, CategoryID(1), uid: 3, flags: [.positiveAction, .negativeAction]) + written
                + dataSource(appIdentifier(uid: 3, "com.apple.Maps")) + written
                + dataSource(text(uid: 3, title: "Call", message: "Anna", labels: true)) + [7, 0, 0, 1] + written),
            ("gone", source(.added, navigation, uid: 4) + [5, 1, 0xA2]),
            ("sharing-off", source(.added, navigation, uid: 5) + [5, 1, 0xA1]),
            ("stray-fragments", source(.added, navigation, uid: 6) + written + [4, 3, 0x00, 0x0E, 0x00] + [3, 4, 0x01, 0x07, 0x00, 0x00]),
            ("timeouts-and-probe", source(.added, navigation, uid: 7) + [6, 0x40, 0x00] + [6, 0xFF, 0xFF, 6, 0xFF, 0xFF]),
            ("silence", [7, 1, 1, 6, 0x80, 0x17]),
            ("service-changed", maps + [7, 2]),
            ("link-lost", source(.added, navigation, uid: 8) + [7, 4, 7, 5]),
            ("bad-lengths", [0x80, 3, 0, 0, 8] + [0x80, 9, 0, 0, 8, 1, 1, 0, 0, 0]),
        ]
    }
}

/// The Data Source reassembler with a request pending: raw fragments, and a
/// valid response cut at input-chosen points, which must come out whole.
enum ANCSDataSourceTarget {
    static let target = FuzzTarget(name: "ancs-data-source", run: run, seeds: seeds)

    static let commands: [ControlPointCommand] = [
        .getNotificationAttributes(NotificationUID(0x0102_0304), [NotificationAttributeRequest(.appIdentifier)]),
        .getNotificationAttributes(NotificationUID(7), ANCSNotificationSourceTarget.configuration
            .textRequest(flags: [.positiveAction, .negativeAction])),
        .getAppAttributes(AppIdentifier("com.apple.Maps"), [.displayName]),
        .getNotificationAttributes(NotificationUID(9), []),
    ]

    static func run(_ data: [UInt8]) {
        var input = FuzzInput(data)
        let selector = input.byte()
        let command = commands[Int(selector & 0x7F) % commands.count]
        guard let expectation = command.expectedResponse(sanityLimit: 512) else { return }
        var reassembler = DataSourceReassembler(expecting: expectation)
        if selector & 0x80 == 0 {
            var fragments = 0
            while !input.isAtEnd, fragments < 400 {
                fragments += 1
                let progress = reassembler.feed(input.chunk())
                switch progress {
                case .complete(let response):
                    check(response, against: expectation)
                    invariant(!reassembler.isInsideResponse, "complete but still inside a response")
                case .discarded:
                    invariant(!reassembler.isInsideResponse, "a discarded fragment left a partial response")
                case .needMore, .malformed:
                    break
                }
            }
            return
        }
        // A valid response with input-chosen values and attribute order.
        var attributes: [DataSourceResponse.Attribute] = []
        var order = expectation.attributes
        var random = SplitMix(seed: SplitMix.seed(data))
        for i in order.indices.reversed() { order.swapAt(i, random.below(i + 1)) }
        for attribute in order {
            attributes.append(.init(id: attribute.id, value: Array(input.chunk().prefix(attribute.maxLength))))
        }
        let response = DataSourceResponse(attributes: attributes)
        let bytes = response.encoded(answering: command)
        var index = 0
        while index < bytes.count {
            let end = min(bytes.count, index + 1 + Int(input.byte()))
            let progress = reassembler.feed(Array(bytes[index..<end]))
            index = end
            if index < bytes.count {
                invariant(progress == .needMore, "valid response stopped after \(index) of \(bytes.count) bytes: \(progress)")
            } else {
                invariant(progress == .complete(response), "valid response came out as \(progress)")
            }
        }
    }

    static func check(_ response: DataSourceResponse, against expectation: DataSourceExpectation) {
        invariant(response.attributes.count == expectation.attributes.count, "response with \(response.attributes.count) attributes")
        for attribute in response.attributes {
            guard let expected = expectation.attributes.first(where: { $0.id == attribute.id }) else {
                invariant(false, "attribute \(attribute.id) was not asked for")
                return
            }
            invariant(attribute.value.count <= expected.maxLength, "attribute \(attribute.id) longer than its limit")
            invariant(response.attributes.filter { $0.id == attribute.id }.count == 1, "attribute \(attribute.id) twice")
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        func fragments(_ selector: UInt8, _ parts: [[UInt8]]) -> [UInt8] {
            var s = Script([selector])
            for part in parts { s.chunk(part) }
            return s.bytes
        }
        let identify = ANCSNotificationSourceTarget.appIdentifier(uid: 0x0102_0304, "com.apple.Maps")
        let text = ANCSNotificationSourceTarget.text(uid: 7, title: "In 300 m", message: "Turn right onto Main Street", labels: true)
        let appName = DataSourceResponse(attributes: [.init(id: 0, value: Array("Maps".utf8))])
            .encoded(answering: .getAppAttributes(AppIdentifier("com.apple.Maps"), []))
        func cut(_ bytes: [UInt8], _ size: Int) -> [[UInt8]] {
            stride(from: 0, to: bytes.count, by: size).map { Array(bytes[$0..<min(bytes.count, $0 + size)]) }
        }
        var roundTrip = Script([0x81])
        for value in ["In 300 m", "", "Turn right", "20240501T081500", "Go", "Clear"] { roundTrip.chunk(Array(value.utf8)) }
        for size in [3, 19, 0, 7, 200, 1] { roundTrip.byte(UInt8(size)) }
        return [
            ("identify-whole", fragments(0, [identify])),
            ("identify-split-in-header", fragments(0, cut(identify, 3))),
            ("text-mtu-23", fragments(1, cut(text, 20))),
            ("text-byte-by-byte", fragments(1, cut(text, 1))),
            ("app-name", fragments(2, cut(appName, 20))),
            ("header-only", fragments(3, [[0x00, 0x09, 0x00, 0x00, 0x00]])),
            ("other-uid-then-right", fragments(0, [[0x00, 0x05, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x41], identify])),
            ("attribute-twice", fragments(0, [Array(identify.prefix(5)) + [0x00, 0x01, 0x00, 0x41, 0x00, 0x01, 0x00, 0x42]])),
            ("over-limit", fragments(1, [[0x00, 0x07, 0x00, 0x00, 0x00, 0x01, 0xFF, 0xFF]])),
            ("trailing-bytes", fragments(0, [identify + [0xEE, 0xEE]])),
            ("round-trip", roundTrip.bytes),
        ]
    }
}
