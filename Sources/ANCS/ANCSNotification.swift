/// What the client knows about one iOS notification in the current session.
/// Text fields stay nil until fetched, and are never fetched for a
/// notification the filter drops.
///
/// The texts live in one shared, copy-on-write box: a notification is
/// copied into the client's actions and events and the model's lists some
/// dozen times per notification, and each copy (and each destroy) of eight
/// optional strings cost a retain or release per string; now it is one.
/// Setting a text copies the box only while another copy shares it.
public struct ANCSNotification: Equatable {
    public let uid: NotificationUID
    public var category: CategoryID
    public var categoryCount: UInt8
    /// The flags of the latest Notification Source event for it.
    public var flags: EventFlags
    private var texts: Texts

    /// Nil until the AppIdentifier has been fetched.
    public var app: AppIdentifier? {
        get { texts.app }
        set { unique().app = newValue }
    }
    /// From the app-name cache (GetAppAttributes DisplayName).
    public var appName: String? {
        get { texts.appName }
        set { unique().appName = newValue }
    }
    public var title: String? {
        get { texts.title }
        set { unique().title = newValue }
    }
    public var subtitle: String? {
        get { texts.subtitle }
        set { unique().subtitle = newValue }
    }
    public var message: String? {
        get { texts.message }
        set { unique().message = newValue }
    }
    /// `yyyyMMdd'T'HHmmSS` as the phone sent it.
    public var date: String? {
        get { texts.date }
        set { unique().date = newValue }
    }
    public var positiveActionLabel: String? {
        get { texts.positiveActionLabel }
        set { unique().positiveActionLabel = newValue }
    }
    public var negativeActionLabel: String? {
        get { texts.negativeActionLabel }
        set { unique().negativeActionLabel = newValue }
    }

    public init(uid: NotificationUID, category: CategoryID, categoryCount: UInt8 = 0, flags: EventFlags = [],
                app: AppIdentifier? = nil, appName: String? = nil, title: String? = nil, subtitle: String? = nil,
                message: String? = nil, date: String? = nil,
                positiveActionLabel: String? = nil, negativeActionLabel: String? = nil) {
        self.uid = uid
        self.category = category
        self.categoryCount = categoryCount
        self.flags = flags
        if app == nil && appName == nil && title == nil && subtitle == nil && message == nil && date == nil
            && positiveActionLabel == nil && negativeActionLabel == nil {
            // A new notification knows no text yet: no box of its own until one is set.
            texts = Texts.none
        } else {
            texts = Texts(app: app, appName: appName, title: title, subtitle: subtitle, message: message, date: date,
                          positiveActionLabel: positiveActionLabel, negativeActionLabel: negativeActionLabel)
        }
    }

    public static func == (a: ANCSNotification, b: ANCSNotification) -> Bool {
        a.uid == b.uid && a.category == b.category && a.categoryCount == b.categoryCount && a.flags == b.flags
            && (a.texts === b.texts || a.texts.same(as: b.texts))
    }

    /// The box, this notification's own before a text is set.
    private mutating func unique() -> Texts {
        if !isKnownUniquelyReferenced(&texts) { texts = texts.copy() }
        return texts
    }

    private final class Texts {
        /// Shared by every notification without text (never changed: a set copies it first).
        static let none = Texts(app: nil, appName: nil, title: nil, subtitle: nil, message: nil, date: nil,
                                positiveActionLabel: nil, negativeActionLabel: nil)

        var app: AppIdentifier?
        var appName: String?
        var title: String?
        var subtitle: String?
        var message: String?
        var date: String?
        var positiveActionLabel: String?
        var negativeActionLabel: String?

        init(app: AppIdentifier?, appName: String?, title: String?, subtitle: String?, message: String?, date: String?,
             positiveActionLabel: String?, negativeActionLabel: String?) {
            self.app = app
            self.appName = appName
            self.title = title
            self.subtitle = subtitle
            self.message = message
            self.date = date
            self.positiveActionLabel = positiveActionLabel
            self.negativeActionLabel = negativeActionLabel
        }

        func copy() -> Texts {
            Texts(app: app, appName: appName, title: title, subtitle: subtitle, message: message, date: date,
                  positiveActionLabel: positiveActionLabel, negativeActionLabel: negativeActionLabel)
        }

        func same(as o: Texts) -> Bool {
            app == o.app && appName == o.appName && title == o.title && subtitle == o.subtitle && message == o.message
                && date == o.date && positiveActionLabel == o.positiveActionLabel && negativeActionLabel == o.negativeActionLabel
        }
    }
}
