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
            // This runs several times per notification, and an identifier
            // usually comes spelt as configured: compared as it is first,
            // lowercased (a copy of each string) only when that fails.
            let id = app.value
            var lowered: String?
            func among(_ apps: [String]) -> Bool {
                if apps.contains(id) { return true }
                let l = lowered ?? id.lowercased()
                lowered = l
                return apps.contains { $0.lowercased() == l }
            }
            if among(navigationApps) { return .navigation }
            if among(musicApps) { return .music }
        }
        if navigationCategories.contains(category) { return .navigation }
        if musicCategories.contains(category) { return .music }
        return .other
    }

    public func kind(of notification: ANCSNotification) -> NotificationKind {
        kind(app: notification.app, category: notification.category)
    }
}
