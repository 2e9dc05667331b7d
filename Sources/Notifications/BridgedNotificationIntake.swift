import ANCS

/// Feeds notifications that arrive decrypted over NotifBridge
/// (docs/NOTIFBRIDGE.md) into the same model as ANCS. The bundle id
/// (`sourceIdentifier`) is the app the Maps/Music filter looks at; the
/// category is `other`, so an app outside the filter's lists is dropped:
/// its text goes no further than this call, is never kept, and the drop is
/// counted like an ANCS one.
///
/// They are the model's `.notifBridge` source, with UIDs of their own (from
/// the top half of the UID space, so the numbers in the event log do not
/// look like ANCS's): an ANCS session that ends leaves them, and they never
/// make the ANCS client expect updates. Plain values in, so this layer does
/// not depend on the NotifBridge protocol layer.
public final class BridgedNotificationIntake {
    public let model: NotificationModel
    private struct Key: Hashable {
        let app: String
        let notificationID: String
    }
    /// The bridged notifications the model shows, and their UIDs.
    private var shown: [Key: NotificationUID] = [:]
    private var nextUID: UInt32 = BridgedNotificationIntake.firstUID
    static let firstUID: UInt32 = 0x8000_0000

    public init(model: NotificationModel) {
        self.model = model
    }

    /// An `add` or `update`: shown (or changed) if the filter wants the app,
    /// else dropped and counted. True when it is on screen.
    @discardableResult
    public func received(app: String, notificationID: String, appName: String?, title: String?, subtitle: String?, body: String?) -> Bool {
        let key = Key(app: app, notificationID: notificationID)
        let identifier = AppIdentifier(app)
        guard model.filter.kind(app: identifier, category: .other) != .other else {
            // Also gone from the screen if the filter changed since it was shown.
            removed(app: app, notificationID: notificationID)
            model.handle(.notificationDropped(ANCSNotification(uid: freshUID(), category: .other, app: identifier, appName: appName)), from: .notifBridge)
            return false
        }
        let uid = shown[key] ?? freshUID()
        shown[key] = uid
        model.handle(.notificationFetched(ANCSNotification(uid: uid, category: .other, app: identifier, appName: appName,
                                                           title: title, subtitle: subtitle, message: body)), from: .notifBridge)
        return true
    }

    public func removed(app: String, notificationID: String) {
        guard let uid = shown.removeValue(forKey: Key(app: app, notificationID: notificationID)) else { return }
        model.handle(.notificationRemoved(ANCSNotification(uid: uid, category: .other, app: AppIdentifier(app))), from: .notifBridge)
    }

    /// The phone cleared every notification it forwards (ANCS ones stay).
    public func removedAll() {
        let all = shown
        shown = [:]
        for (key, uid) in all {
            model.handle(.notificationRemoved(ANCSNotification(uid: uid, category: .other, app: AppIdentifier(key.app))), from: .notifBridge)
        }
    }

    private func freshUID() -> NotificationUID {
        let uid = NotificationUID(nextUID)
        // Wraps within the top half, never reaching the probe UID 0xFFFFFFFF.
        nextUID = nextUID >= 0xFFFF_FFFE ? BridgedNotificationIntake.firstUID : nextUID + 1
        return uid
    }
}
