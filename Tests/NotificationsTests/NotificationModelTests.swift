import ANCS
import BluetoothCore
import Testing
@testable import Notifications

@Suite struct NotificationFilterTests {
    let filter = NotificationFilter()

    @Test func protocolDefaults() {
        #expect(filter.kind(app: AppIdentifier("com.google.Maps"), category: .other) == .navigation)
        #expect(filter.kind(app: AppIdentifier("com.apple.Maps"), category: .location) == .navigation)
        #expect(filter.kind(app: AppIdentifier("com.waze.iphone"), category: .other) == .navigation)
        #expect(filter.kind(app: AppIdentifier("com.example.hiking"), category: .location) == .navigation)
        #expect(filter.kind(app: AppIdentifier("com.apple.Music"), category: .other) == .music)
        #expect(filter.kind(app: AppIdentifier("com.spotify.client"), category: .entertainment) == .music)
        #expect(filter.kind(app: AppIdentifier("com.example.radio"), category: .entertainment) == .music)
        #expect(filter.kind(app: AppIdentifier("com.apple.MobileSMS"), category: .social) == .other)
        #expect(filter.kind(app: AppIdentifier("com.apple.mobilemail"), category: .email) == .other)
        #expect(filter.kind(app: nil, category: .location) == .navigation)
        #expect(filter.kind(app: nil, category: .social) == .other)
    }

    @Test func appIdentifiersIgnoreCase() {
        #expect(filter.kind(app: AppIdentifier("com.google.maps"), category: .other) == .navigation)
    }

    @Test func configuredIdentifiersMatchInAnyCase() {
        let mixed = NotificationFilter(navigationApps: ["de.example.Straßen"], musicApps: ["com.example.Radio"])
        #expect(mixed.kind(app: AppIdentifier("de.example.Straßen"), category: .other) == .navigation)
        #expect(mixed.kind(app: AppIdentifier("DE.EXAMPLE.straßen"), category: .other) == .navigation)
        #expect(mixed.kind(app: AppIdentifier("COM.example.radio"), category: .other) == .music)
        #expect(mixed.kind(app: AppIdentifier("de.example.Strassen"), category: .other) == .other)
    }

    @Test func theAppDecidesBeforeTheCategory() {
        // A music app's notification filed under Location is music.
        #expect(filter.kind(app: AppIdentifier("com.spotify.client"), category: .location) == .music)
    }

    @Test func configuredLists() {
        let custom = NotificationFilter(navigationApps: ["com.sygic.aura"], navigationCategories: [],
                                        musicApps: [], musicCategories: [])
        #expect(custom.kind(app: AppIdentifier("com.sygic.aura"), category: .other) == .navigation)
        #expect(custom.kind(app: AppIdentifier("com.google.Maps"), category: .location) == .other)
        #expect(custom.kind(app: AppIdentifier("com.apple.Music"), category: .entertainment) == .other)
    }
}

@Suite struct NotificationModelTests {
    func maps(_ uid: UInt32, _ title: String, _ message: String, app: String = "com.google.Maps") -> ANCSNotification {
        ANCSNotification(uid: NotificationUID(uid), category: .location, app: AppIdentifier(app), appName: "Google Maps",
                         title: title, subtitle: "", message: message)
    }

    func drain(_ m: NotificationModel) -> [NotificationEvent] {
        var out: [NotificationEvent] = []
        while let e = m.pollEvent() { out.append(e) }
        return out
    }

    @Test func navigationInstructionAppearsUpdatesAndDisappears() {
        let m = NotificationModel()
        #expect(m.navigation == nil)
        m.handle(.notificationFetched(maps(1, "200 m", "Turn left onto Main St")))
        #expect(m.navigation?.title == "200 m")
        #expect(m.navigation?.message == "Turn left onto Main St")
        #expect(m.expectsUpdates)
        #expect(drain(m) == [NotificationEvent(action: .shown, uid: NotificationUID(1), app: AppIdentifier("com.google.Maps"),
                                               appName: "Google Maps", category: .location, kind: .navigation,
                                               title: "200 m", message: "Turn left onto Main St")])
        m.handle(.notificationFetched(maps(1, "50 m", "Turn left onto Main St")))
        #expect(m.navigation?.title == "50 m")
        #expect(m.shown.count == 1)
        #expect(drain(m).map { $0.action } == [.updated])
        m.handle(.notificationRemoved(maps(1, "", "")))
        #expect(m.navigation == nil)
        #expect(!m.expectsUpdates)
        let removed = drain(m)
        #expect(removed.map { $0.action } == [.removed])
        #expect(removed.first?.title == "50 m") // what was on screen
    }

    /// An instruction known only from the session's PreExisting replay may
    /// be a stale one Maps left behind: updates are expected once it changes.
    @Test func aReplayedInstructionIsNotExpectedToChangeUntilItDoes() {
        let m = NotificationModel()
        var replayed = maps(1, "Arrived", "Main St 5")
        replayed.flags = [.preExisting]
        m.handle(.notificationFetched(replayed))
        #expect(m.navigation?.title == "Arrived")
        #expect(!m.expectsUpdates)
        m.handle(.notificationFetched(maps(1, "In 200 m", "Turn left")))
        #expect(m.expectsUpdates)
    }

    @Test func removalFallsBackToAnOlderInstructionStillPresent() {
        let m = NotificationModel()
        m.handle(.notificationFetched(maps(1, "2 km", "Keep right", app: "com.apple.Maps")))
        m.handle(.notificationFetched(maps(2, "300 m", "Exit 47")))
        #expect(m.navigation?.uid == NotificationUID(2))
        // A change to the older one makes it the latest.
        m.handle(.notificationFetched(maps(1, "1.5 km", "Keep right", app: "com.apple.Maps")))
        #expect(m.navigation?.uid == NotificationUID(1))
        m.handle(.notificationRemoved(maps(1, "", "")))
        #expect(m.navigation?.uid == NotificationUID(2))
        #expect(m.navigation?.title == "300 m")
        m.handle(.notificationRemoved(maps(2, "", "")))
        #expect(m.navigation == nil)
    }

    @Test func droppedNotificationsAreCountedWithoutText() {
        let m = NotificationModel()
        let chat = ANCSNotification(uid: NotificationUID(9), category: .social, app: AppIdentifier("com.apple.MobileSMS"))
        #expect(!m.wantsText(chat))
        m.handle(.notificationDropped(chat))
        m.handle(.notificationDropped(ANCSNotification(uid: NotificationUID(10), category: .social, app: AppIdentifier("net.whatsapp.WhatsApp"))))
        m.handle(.notificationDropped(ANCSNotification(uid: NotificationUID(11), category: .email, app: AppIdentifier("com.apple.mobilemail"))))
        #expect(m.droppedCounts == [.social: 2, .email: 1])
        #expect(m.droppedTotal == 3)
        #expect(m.droppedByCategoryIndex == [0, 0, 0, 0, 2, 0, 1, 0, 0, 0, 0, 0])
        let events = drain(m)
        #expect(events.map { $0.action } == [.dropped, .dropped, .dropped])
        #expect(events.allSatisfy { $0.title == nil && $0.message == nil && $0.kind == .other })
        #expect(m.shown.isEmpty)
        // Their removal says nothing: they were never shown.
        m.handle(.notificationRemoved(chat))
        #expect(drain(m).isEmpty)
        #expect(m.revision == 0)
    }

    @Test func musicNotificationsAreShownButAreNotTheInstruction() {
        let m = NotificationModel()
        let song = ANCSNotification(uid: NotificationUID(4), category: .entertainment, app: AppIdentifier("com.spotify.client"),
                                    title: "Now playing", message: "Song")
        #expect(m.wantsText(song))
        m.handle(.notificationFetched(song))
        #expect(m.music.count == 1)
        #expect(m.navigation == nil)
        #expect(drain(m).first?.kind == .music)
    }

    @Test func sessionEndRemovesEverythingShown() {
        let m = NotificationModel()
        m.handle(.notificationFetched(maps(1, "200 m", "Turn left")))
        m.handle(.notificationFetched(ANCSNotification(uid: NotificationUID(2), category: .entertainment,
                                                       app: AppIdentifier("com.apple.Music"), title: "t", message: "m")))
        _ = drain(m)
        m.handle(.sessionEnded)
        #expect(m.shown.isEmpty)
        #expect(drain(m).map { $0.uid.value } == [1, 2])
        // UIDs of the next session start afresh.
        m.handle(.notificationFetched(maps(1, "100 m", "Turn right")))
        #expect(drain(m).map { $0.action } == [.shown])
    }

    @Test func aFetchedNotificationTheFilterNoLongerWantsIsDropped() {
        let m = NotificationModel()
        m.handle(.notificationFetched(maps(1, "200 m", "Turn left")))
        _ = drain(m)
        m.filter = NotificationFilter(navigationApps: [], navigationCategories: [])
        m.handle(.notificationFetched(maps(1, "100 m", "Turn left")))
        let events = drain(m)
        #expect(events.map { $0.action } == [.removed, .dropped])
        #expect(events.last?.title == nil)
    }

    @Test func otherEventsAreIgnored() {
        let m = NotificationModel()
        m.handle(.sessionStarted)
        m.handle(.sharingDisabled(.switchedOff))
        m.handle(.appNameLearned(AppIdentifier("a"), "A"))
        #expect(drain(m).isEmpty)
    }
}
