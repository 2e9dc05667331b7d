import BluetoothCore

// The Control Point request queue: one write at a time, each with its own
// deadline; the Data Source answer is rebuilt by the request's own
// DataSourceReassembler; results and errors touch only the request's UID.

extension ANCSClient {
    /// Something to ask the phone.
    enum Request: Equatable {
        /// AppIdentifier only: enough to apply the filter, nothing private.
        case identify(NotificationUID)
        /// Title, Subtitle, Message, Date, action labels: only after the filter said yes.
        case text(NotificationUID)
        case appName(AppIdentifier)
        /// The liveness probe: a UID that does not exist, answered 0xA2.
        case probe
        case action(NotificationUID, ActionID)

        var uid: NotificationUID? {
            switch self {
            case .identify(let uid), .text(let uid), .action(let uid, _): return uid
            case .appName, .probe: return nil
            }
        }

        /// Requests for notifications already shown (and the user's actions)
        /// overtake identification of the PreExisting backlog.
        var isUrgent: Bool {
            switch self {
            case .text, .appName, .action: return true
            case .identify, .probe: return false
            }
        }
    }

    /// A class: the client holds at most one, set and cleared once per
    /// request. As an optional struct, each clearing (and each look that
    /// copied it out) went through the standard library's generic Optional
    /// (the compiler cannot tell the case of a value kept in memory), some
    /// 12 calls per notification; an optional reference is released.
    final class InFlight {
        let request: Request
        let command: ControlPointCommand
        let serial: Int
        let deadline: Instant
        /// Nil for PerformNotificationAction: its write result is the answer.
        var reassembler: DataSourceReassembler?

        init(request: Request, command: ControlPointCommand, serial: Int, deadline: Instant,
             reassembler: DataSourceReassembler?) {
            self.request = request
            self.command = command
            self.serial = serial
            self.deadline = deadline
            self.reassembler = reassembler
        }
    }

    var probePending: Bool {
        inFlight?.request == .probe || queue.contains(.probe)
    }

    /// The number of requests waiting or in flight.
    public var pendingRequestCount: Int { queue.count + (inFlight == nil ? 0 : 1) }

    func enqueue(_ request: Request) {
        guard !queue.contains(request) else { return }
        queue.append(request)
    }

    /// Sends the next request when the Control Point is free.
    func pump() {
        guard phase == .active, inFlight == nil, writeOutstanding == nil, verdictPending == nil else { return }
        while !queue.isEmpty {
            let index = queue.firstIndex(where: { $0.isUrgent }) ?? queue.startIndex
            let request = queue.remove(at: index)
            // The request's command and, for GetNotificationAttributes, the
            // attributes its answer holds, from the shapes made once.
            let command: ControlPointCommand
            var shape: RequestShape?
            switch request {
            case .identify(let uid):
                guard stage(of: uid) == .identifying else { continue }
                shape = requestShape(flags: nil)
                command = .getNotificationAttributes(uid, shape!.attributes)
            case .text(let uid):
                guard let entry = entries[uid], entry.stage == .wanted else { continue }
                shape = requestShape(flags: entry.notification.flags)
                command = .getNotificationAttributes(uid, shape!.attributes)
            case .appName(let app):
                guard name(of: app) == nil else { continue }
                command = .getAppAttributes(app, [.displayName])
            case .probe:
                shape = requestShape(flags: nil)
                command = .getNotificationAttributes(.probe, shape!.attributes)
            case .action(let uid, let action):
                guard hasEntry(uid) else { continue }
                command = .performNotificationAction(uid, action)
            }
            serial += 1
            let bytes = command.bytes
            let expectation: DataSourceExpectation?
            if let shape {
                // The answer starts as the command does: its CommandID and UID.
                expectation = DataSourceExpectation(headerBytes: bytes[..<5], attributes: shape.expected)
            } else {
                expectation = command.expectedResponse(sanityLimit: configuration.uncappedAttributeLimit)
            }
            inFlight = InFlight(request: request, command: command, serial: serial,
                                deadline: now.adding(milliseconds: configuration.requestTimeoutMilliseconds),
                                reassembler: expectation.map { DataSourceReassembler(expecting: $0) })
            writeOutstanding = serial
            Log.debug("ancs", "-> \(command)")
            emit(.writeControlPoint(connection, bytes))
            return
        }
    }

    /// What one kind of GetNotificationAttributes asks for and the
    /// attributes its answer holds. Made once per configuration and kind:
    /// built for each request, they were two arrays more per request.
    final class RequestShape {
        /// Nil for the AppIdentifier alone (identification, the probe), else
        /// the action flags the text request depends on.
        let actionFlags: EventFlags?
        let attributes: [NotificationAttributeRequest]
        let expected: [DataSourceExpectation.Attribute]

        init(actionFlags: EventFlags?, attributes: [NotificationAttributeRequest], sanityLimit: Int) {
            self.actionFlags = actionFlags
            self.attributes = attributes
            expected = ControlPointCommand.getNotificationAttributes(.probe, attributes)
                .expectedResponse(sanityLimit: sanityLimit)?.attributes ?? []
        }
    }

    /// The shape of a request for the AppIdentifier alone (`flags` nil) or
    /// for the text of a notification with these flags.
    func requestShape(flags: EventFlags?) -> RequestShape {
        let key = flags.map { $0.intersection([.positiveAction, .negativeAction]) }
        for shape in requestShapes where shape.actionFlags == key { return shape }
        let attributes = flags.map { configuration.textRequest(flags: $0) } ?? [NotificationAttributeRequest(.appIdentifier)]
        let shape = RequestShape(actionFlags: key, attributes: attributes, sanityLimit: configuration.uncappedAttributeLimit)
        requestShapes.append(shape)
        return shape
    }

    // MARK: - Answers

    public func controlPointWriteCompleted(_ result: RemoteOperationResult, now: Instant) {
        self.now = now
        let written = writeOutstanding
        writeOutstanding = nil
        guard let flight = inFlight, flight.serial == written else {
            // The answer to a request that already completed (its data came
            // first) or was given up (timeout, session end).
            if case .attError(let code) = result {
                Log.debug("ancs", "late Control Point error \(ANCSErrorCode.name(code)) ignored")
            }
            pump()
            return
        }
        switch result {
        case .done, .value:
            controlPointAnswered()
            if flight.reassembler == nil {
                inFlight = nil
                if case .action(let uid, let action) = flight.request {
                    emit(.event(.actionCompleted(uid, action, succeeded: true)))
                }
            }
            // Otherwise the Data Source answer completes the request.
        case .attError(let code):
            inFlight = nil
            controlPointError(code, for: flight.request)
        case .failed:
            inFlight = nil
            fail(flight.request, because: "the Control Point write failed")
        }
        pump()
    }

    /// The owner's answer to `.askWantsText`: whether the notification
    /// passed its filter. Yes asks for its text (and its app's name, when
    /// unknown); no drops it, and only its AppIdentifier was ever asked.
    public func textWanted(_ wanted: Bool, for uid: NotificationUID, now: Instant) {
        self.now = now
        guard verdictPending == uid else {
            Log.debug("ancs", "answer about \(uid), which waits for none; ignored")
            return
        }
        verdictPending = nil
        if stage(of: uid) == .identifying {
            changeEntry(uid) { entry in
                if wanted {
                    entry.stage = .wanted
                    // The name is usually known: asked first, the identifier
                    // is not scanned for a NUL on every notification.
                    if let app = entry.notification.app, name(of: app) == nil, app.canBeSent,
                       !appNameFailures.contains(app) {
                        enqueue(.appName(app))
                    }
                    enqueue(.text(uid))
                } else {
                    // Privacy: nothing but the AppIdentifier is ever asked for it.
                    entry.stage = .dropped
                    if !entry.reported {
                        // Dropped again after a change: reported once is enough.
                        entry.reported = true
                        emit(.event(.notificationDropped(entry.notification)))
                    }
                }
            }
        }
        pump()
    }

    func dataSourceFragment(_ bytes: [UInt8]) {
        guard let flight = inFlight, flight.reassembler != nil else {
            Log.info("ancs", "Data Source: \(bytes.count) bytes while no request waits for any; dropped")
            return
        }
        // Fed where it lies: a copy of the reassembler taken out and stored
        // back shared its buffers, so each fragment copied them.
        switch flight.reassembler!.feed(bytes) {
        case .needMore:
            break
        case .discarded(let reason):
            Log.info("ancs", "Data Source: fragment dropped while waiting for \(flight.command): \(reason)")
        case .malformed(let reason):
            inFlight = nil
            fail(flight.request, because: "malformed response: \(reason)")
        case .complete(let response):
            let request = flight.request
            inFlight = nil
            controlPointAnswered()
            completed(request, response)
        }
    }

    /// The phone handles our writes: liveness is fine, and sharing is on.
    func controlPointAnswered() {
        lastAnswer = now
        securityRefusals = 0
        if isSharingDisabled {
            sharingRefusal = nil
            Log.info("ancs", "the phone shares notifications again")
            emit(.event(.sharingRestored))
        }
    }

    /// The probe proves the Control Point path only. Counted from one
    /// answered probe to the next, hours without any news on the
    /// Notification Source mean its pushes may have stopped while the phone
    /// still answers: both CCCDs are written again (iOS takes redundant
    /// writes silently), and the replay shows what was missed.
    func probeAnswered() {
        let silent = now.millisecondsSince(lastNotificationSource)
        guard silent >= configuration.notificationSourceSilenceLimitMilliseconds else { return }
        resubscribe(because: "the Control Point answers the probe, but the Notification Source has sent nothing new for \(silent / 60_000) min")
    }

    func completed(_ request: Request, _ response: DataSourceResponse) {
        switch request {
        case .identify(let uid):
            guard stage(of: uid) == .identifying else { return }
            let app = response.text(of: NotificationAttributeID.appIdentifier.rawValue).map { AppIdentifier($0) }
            changeEntry(uid) { entry in
                entry.notification.app = app
                entry.notification.appName = app.flatMap { name(of: $0) }
                // The owner's filter decides; the Control Point waits for it.
                verdictPending = uid
                emit(.askWantsText(entry.notification))
            }
        case .text(let uid):
            guard stage(of: uid) == .wanted else { return }
            changeEntry(uid) { entry in
                fill(&entry.notification, from: response)
                entry.notification.appName = entry.notification.app.flatMap { name(of: $0) }
                entry.stage = .fetched
                entry.reported = true
                emit(.event(.notificationFetched(entry.notification)))
                if entry.refetch {
                    entry.refetch = false
                    entry.stage = .wanted
                    enqueue(.text(uid))
                }
            }
        case .appName(let app):
            let name = response.text(of: AppAttributeID.displayName.rawValue) ?? ""
            if name.isEmpty {
                appNameFailures.insert(app)
            } else if appNames.insert(name, for: app) {
                emit(.event(.appNameLearned(app, name)))
            }
        case .probe:
            Log.info("ancs", "the probe UID exists on the phone; the Control Point is alive")
            probeAnswered()
        case .action:
            break // no Data Source answer is expected for actions
        }
    }

    func fill(_ notification: inout ANCSNotification, from response: DataSourceResponse) {
        func text(_ id: NotificationAttributeID, cap: UInt16? = nil) -> String? {
            guard let value = response.text(of: id.rawValue) else { return nil }
            return cap.map { clampUTF8(value, maxBytes: Int($0)) } ?? value
        }
        notification.title = text(.title, cap: configuration.titleMaxLength)
        notification.subtitle = text(.subtitle, cap: configuration.subtitleMaxLength)
        notification.message = text(.message, cap: configuration.messageMaxLength)
        notification.date = text(.date)
        notification.positiveActionLabel = text(.positiveActionLabel)
        notification.negativeActionLabel = text(.negativeActionLabel)
    }

    // MARK: - Errors

    func controlPointError(_ code: UInt8, for request: Request) {
        if ANCSErrorCode.meansSecurityRequired(code) {
            if case .action(let uid, let action) = request {
                emit(.event(.actionCompleted(uid, action, succeeded: false)))
            }
            securityRequired(code)
            return
        }
        if let refusal = ANCSErrorCode.sharingRefusal(code) {
            reportSharingDisabled(refusal)
            if request == .probe {
                // Re-subscribing does not help: only the user can switch it on.
                lastAnswer = now
                return
            }
            fail(request, because: ANCSErrorCode.name(code))
            return
        }
        if code >= ANCSErrorCode.unknownCommand && code <= ANCSErrorCode.actionFailed {
            // An ANCS error: the phone does read our writes.
            controlPointAnswered()
        }
        guard code == ANCSErrorCode.invalidParameter else {
            fail(request, because: ANCSErrorCode.name(code))
            return
        }
        // 0xA2: the parameter names nothing. Only this request's UID (or app) is affected.
        switch request {
        case .probe:
            Log.debug("ancs", "probe answered as expected")
            probeAnswered()
        case .identify(let uid), .text(let uid):
            Log.info("ancs", "notification \(uid) is gone (0xa2)")
            forget(uid)
        case .action(let uid, let action):
            Log.info("ancs", "notification \(uid) is gone (0xa2); \(action) action not performed")
            emit(.event(.actionCompleted(uid, action, succeeded: false)))
            forget(uid)
        case .appName(let app):
            Log.info("ancs", "the phone knows no app \(app) (0xa2)")
            appNameFailures.insert(app)
        }
    }

    /// A request that got no usable answer. Only that request is affected.
    func fail(_ request: Request, because reason: String) {
        switch request {
        case .identify(let uid):
            Log.warning("ancs", "AppIdentifier of \(uid) not fetched: \(reason)")
            if stage(of: uid) == .identifying { entries[uid]?.stage = .unidentified }
        case .text(let uid):
            Log.warning("ancs", "text of \(uid) not fetched: \(reason)")
            if stage(of: uid) == .wanted {
                changeEntry(uid) { entry in
                    entry.stage = .textFailed
                    entry.refetch = false
                }
            }
        case .appName(let app):
            Log.warning("ancs", "display name of \(app) not fetched: \(reason)")
            appNameFailures.insert(app)
        case .probe:
            resubscribe(because: "the liveness probe failed: \(reason)")
        case .action(let uid, let action):
            Log.warning("ancs", "\(action) action on \(uid) failed: \(reason)")
            emit(.event(.actionCompleted(uid, action, succeeded: false)))
        }
    }
}
