import ANCS
import BluetoothCore
import Guidance

/// A notification the head unit shows: as the ANCS client fetched it, and
/// what the filter made of it.
public struct ShownNotification: Equatable {
    public var notification: ANCSNotification
    public var kind: NotificationKind
    /// What a navigation notification's text says, read once when it was
    /// fetched (nil for music, or without text).
    public var guidance: Guidance?
    public var source: NotificationSource = .ancs

    public var uid: NotificationUID { notification.uid }
    /// For Maps: usually the distance or the maneuver ("200 m").
    public var title: String? { notification.title }
    /// For Maps: usually the instruction ("Turn left onto Main St").
    public var message: String? { notification.message }
}

/// What the screen shows, built from the ANCS client's events: the shown
/// notifications (navigation and music), the current navigation
/// instruction, and counters of what was dropped. Emits the data of the
/// `notification` events.
///
/// Navigation: the most recently added or changed navigation notification
/// is the current instruction. A change replaces it; its removal clears it,
/// and an older navigation notification still present takes its place.
public final class NotificationModel {
    public var filter: NotificationFilter
    /// Shown notifications, the least recently added or changed first.
    public private(set) var shown: [ShownNotification] = []
    /// Dropped notifications per category since start (never their text).
    public private(set) var droppedCounts: [CategoryID: Int] = [:]
    /// Bumped on every change of what is shown, for the screen to redraw.
    public private(set) var revision = 0
    @usableFromInline var events = FIFO<NotificationEvent>()
    private var reader = GuidanceReader()

    public init(filter: NotificationFilter = NotificationFilter()) {
        self.filter = filter
    }

    /// The ANCS client's filter: the answer to its `.askWantsText`
    /// (`ANCSClient.textWanted(_:for:now:)`).
    public func wantsText(_ notification: ANCSNotification) -> Bool {
        filter.kind(of: notification) != .other
    }

    /// The current turn instruction.
    public var navigation: ShownNotification? { shown.last { $0.kind == .navigation } }

    /// The music notifications, oldest first.
    public var music: [ShownNotification] { shown.filter { $0.kind == .music } }

    /// A navigation instruction is up and the phone changed it in this
    /// session, so it should keep updating it (feed to
    /// `ANCSClient.setNotificationsExpected`). One known only from the
    /// session's PreExisting replay may be a stale one Maps left behind:
    /// expecting updates from it would re-subscribe, and replay it, forever.
    /// Only ANCS's own navigation counts: a forwarded one is updated over
    /// NotifBridge, and ANCS waiting for it would re-subscribe for nothing.
    public var expectsUpdates: Bool {
        // Asked after every ANCS event: looked at in place, not copied out.
        guard let i = shown.lastIndex(where: { $0.kind == .navigation && $0.source == .ancs }) else { return false }
        return !shown[i].notification.flags.contains(.preExisting)
    }

    public var droppedTotal: Int { droppedCounts.values.reduce(0, +) }

    /// The dropped counters as a list indexed by CategoryID (0...11, the
    /// reserved categories left out), as the screen's counters take them.
    public var droppedByCategoryIndex: [Int] {
        (0...CategoryID.entertainment.rawValue).map { droppedCounts[CategoryID($0)] ?? 0 }
    }

    /// Inlinable: the core polls on every pass, mostly finding nothing,
    /// and inlined an empty poll is a test instead of a call (see `FIFO`).
    @inlinable public func pollEvent() -> NotificationEvent? { events.popFirst() }
    /// True while `takeEvent()` has an event to give.
    @inlinable public var hasEvents: Bool { !events.isEmpty }
    /// The next event, while `hasEvents`: no optional for the caller to
    /// destroy at the end of its loop (see `FIFO.removeFirst`).
    @inlinable public func takeEvent() -> NotificationEvent { events.removeFirst() }

    /// Takes every ANCS event (or, `from: .notifBridge`, the same events
    /// for forwarded notifications); the ones that do not concern the model are ignored.
    public func handle(_ event: ANCSEvent, from source: NotificationSource = .ancs) {
        switch event {
        case .notificationFetched(let n): fetched(n, source)
        case .notificationDropped(let n): dropped(n, source)
        case .notificationRemoved(let n): removed(n.uid, source)
        case .sessionEnded: clear(source)
        case .sessionStarted, .appNameLearned, .sharingDisabled, .sharingRestored, .actionCompleted, .serviceAbsent,
             .securityRequired, .securityRefusedRepeatedly:
            break
        }
    }

    /// Forgets everything one source showed (an ANCS session ended, by
    /// default): a removal for each. The other source's stay.
    public func clear(_ source: NotificationSource = .ancs) {
        let all = shown
        for item in all where item.source == source { removed(item.uid, source) }
    }

    // MARK: - Internals

    private func fetched(_ n: ANCSNotification, _ source: NotificationSource) {
        let kind = filter.kind(of: n)
        guard kind != .other else {
            // The filter changed since the client asked: no longer shown.
            removed(n.uid, source)
            dropped(n, source)
            return
        }
        var guidance: Guidance?
        if kind == .navigation && (n.title != nil || n.message != nil) {
            guidance = reader.read(title: n.title ?? "", message: n.message ?? "")
        }
        let action: NotificationEventAction
        if let index = shown.firstIndex(where: { $0.uid == n.uid && $0.source == source }) {
            // Moves to the end: the latest change is the current instruction.
            shown.remove(at: index)
            action = .updated
        } else {
            action = .shown
        }
        revision += 1
        // The event first, then the item takes the notification and its
        // reading as they are: no copy of the reading per use.
        events.append(NotificationEvent(action: action, uid: n.uid, app: n.app, appName: n.appName, category: n.category,
                                        kind: kind, title: n.title, message: n.message, guidance: guidance, source: source))
        shown.append(ShownNotification(notification: n, kind: kind, guidance: guidance, source: source))
    }

    private func dropped(_ n: ANCSNotification, _ source: NotificationSource) {
        droppedCounts[n.category, default: 0] += 1
        events.append(NotificationEvent(action: .dropped, uid: n.uid, app: n.app, appName: n.appName, category: n.category,
                                        kind: filter.kind(of: n), title: nil, message: nil, guidance: nil, source: source))
    }

    private func removed(_ uid: NotificationUID, _ source: NotificationSource) {
        guard let index = shown.firstIndex(where: { $0.uid == uid && $0.source == source }) else { return }
        let item = shown.remove(at: index)
        revision += 1
        let n = item.notification
        events.append(NotificationEvent(action: .removed, uid: uid, app: n.app, appName: n.appName, category: n.category,
                                        kind: item.kind, title: n.title, message: n.message, guidance: nil, source: source))
    }
}
