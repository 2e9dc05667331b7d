import ANCS

/// Which notifications are navigation, which are music, the rest being
/// dropped. A plain value: the config layer fills it (docs/PROTOCOL.md §4 defaults).
public struct NotificationFilter: Equatable {
    public static let defaultNavigationApps = ["com.google.Maps", "com.apple.Maps", "com.waze.iphone"]
    public static let defaultNavigationCategories: [CategoryID] = [.location]
    public static let defaultMusicApps = ["com.apple.Music", "com.spotify.client"]
    public static let defaultMusicCategories: [CategoryID] = [.entertainment]

    /// Bundle identifiers, compared without regard to case (iOS treats them so).
    public var navigationApps: [String]
    public var navigationCategories: [CategoryID]
    public var musicApps: [String]
    public var musicCategories: [CategoryID]

    public init(navigationApps: [String] = NotificationFilter.defaultNavigationApps,
                navigationCategories: [CategoryID] = NotificationFilter.defaultNavigationCategories,
                musicApps: [String] = NotificationFilter.defaultMusicApps,
                musicCategories: [CategoryID] = NotificationFilter.defaultMusicCategories) {
        self.navigationApps = navigationApps
        self.navigationCategories = navigationCategories
        self.musicApps = musicApps
        self.musicCategories = musicCategories
    }

    /// The app decides first (a Maps notification filed under another
    /// category is still navigation), then the category.
    public func kind(app: AppIdentifier?, category: CategoryID) -> NotificationKind {
        if let app {
            if navigationApps.contains(where: { NotificationFilter.sameIgnoringCase($0, app.value) }) { return .navigation }
            if musicApps.contains(where: { NotificationFilter.sameIgnoringCase($0, app.value) }) { return .music }
        }
        if navigationCategories.contains(category) { return .navigation }
        if musicCategories.contains(category) { return .music }
        return .other
    }

    /// Equal without regard to case. Bundle identifiers are ASCII, and this
    /// runs several times per notification: ASCII is compared byte by byte
    /// (lowercased copies of both cost two allocations per comparison); a
    /// string with anything else in it is compared lowercased.
    static func sameIgnoringCase(_ a: String, _ b: String) -> Bool {
        func lower(_ c: UInt8) -> UInt8 { c >= 0x41 && c <= 0x5A ? c | 0x20 : c }
        var x = a.utf8.makeIterator(), y = b.utf8.makeIterator()
        while true {
            switch (x.next(), y.next()) {
            case (nil, nil):
                return true
            case let (p?, q?) where p < 0x80 && q < 0x80:
                // An ASCII prefix lowercases to itself, byte for byte.
                if lower(p) != lower(q) { return false }
            case let (p, q) where (p ?? 0) < 0x80 && (q ?? 0) < 0x80
                && !a.utf8.contains(where: { $0 >= 0x80 }) && !b.utf8.contains(where: { $0 >= 0x80 }):
                return false  // all ASCII, one longer than the other
            default:
                return a.lowercased() == b.lowercased()
            }
        }
    }

    public func kind(of notification: ANCSNotification) -> NotificationKind {
        kind(app: notification.app, category: notification.category)
    }
}
