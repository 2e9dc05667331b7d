/// What the client knows about one iOS notification in the current session.
/// Text fields stay nil until fetched, and are never fetched for a
/// notification the filter drops.
public struct ANCSNotification: Equatable {
    public let uid: NotificationUID
    public var category: CategoryID
    public var categoryCount: UInt8
    /// The flags of the latest Notification Source event for it.
    public var flags: EventFlags
    /// Nil until the AppIdentifier has been fetched.
    public var app: AppIdentifier?
    /// From the app-name cache (GetAppAttributes DisplayName).
    public var appName: String?
    public var title: String?
    public var subtitle: String?
    public var message: String?
    /// `yyyyMMdd'T'HHmmSS` as the phone sent it.
    public var date: String?
    public var positiveActionLabel: String?
    public var negativeActionLabel: String?

    public init(uid: NotificationUID, category: CategoryID, categoryCount: UInt8 = 0, flags: EventFlags = [],
                app: AppIdentifier? = nil, appName: String? = nil, title: String? = nil, subtitle: String? = nil,
                message: String? = nil, date: String? = nil,
                positiveActionLabel: String? = nil, negativeActionLabel: String? = nil) {
        self.uid = uid
        self.category = category
        self.categoryCount = categoryCount
        self.flags = flags
        self.app = app
        self.appName = appName
        self.title = title
        self.subtitle = subtitle
        self.message = message
        self.date = date
        self.positiveActionLabel = positiveActionLabel
        self.negativeActionLabel = negativeActionLabel
    }
}
