import XCTest
@testable import ANCS
@testable import Notifications

final class BridgedNotificationIntakeTests: XCTestCase {
    private func drain(_ model: NotificationModel) -> [NotificationEvent] {
        var out: [NotificationEvent] = []
        while let e = model.pollEvent() { out.append(e) }
        return out
    }

    func testMapsAndMusicAreShownByTheirBundleId() {
        let model = NotificationModel()
        let intake = BridgedNotificationIntake(model: model)
        intake.received(app: "com.google.Maps", notificationID: "n1", appName: "Google Maps", title: "200 m", subtitle: nil, body: "Turn left")
        intake.received(app: "com.apple.Music", notificationID: "m1", appName: "Music", title: "Song", subtitle: nil, body: "Artist")
        XCTAssertEqual(model.navigation?.message, "Turn left")
        XCTAssertEqual(model.music.map { $0.title }, ["Song"])
        let events = drain(model)
        XCTAssertEqual(events.map { $0.action }, [.shown, .shown])
        XCTAssertEqual(events.map { $0.kind }, [.navigation, .music])
        XCTAssertTrue(events.allSatisfy { $0.uid.value >= 0x8000_0000 })

        intake.received(app: "com.google.Maps", notificationID: "n1", appName: "Google Maps", title: "50 m", subtitle: nil, body: "Turn left now")
        XCTAssertEqual(model.navigation?.message, "Turn left now")
        XCTAssertEqual(model.shown.count, 2, "an update replaces")
        XCTAssertEqual(drain(model).map { $0.action }, [.updated])

        intake.removed(app: "com.google.Maps", notificationID: "n1")
        XCTAssertNil(model.navigation)
        intake.removed(app: "com.google.Maps", notificationID: "n1")
        XCTAssertEqual(drain(model).map { $0.action }, [.removed], "a second removal is nothing")
    }

    func testOtherAppsAreDroppedWithoutTheirText() {
        let model = NotificationModel()
        let intake = BridgedNotificationIntake(model: model)
        intake.received(app: "net.whatsapp.WhatsApp", notificationID: "c1", appName: "WhatsApp", title: "Alice", subtitle: nil, body: "secret")
        XCTAssertTrue(model.shown.isEmpty)
        XCTAssertEqual(model.droppedTotal, 1)
        let events = drain(model)
        XCTAssertEqual(events.map { $0.action }, [.dropped])
        XCTAssertNil(events[0].title)
        XCTAssertNil(events[0].message)
        XCTAssertEqual(events[0].app, AppIdentifier("net.whatsapp.WhatsApp"))
    }

    func testRemoveAllTakesOnlyBridgedNotifications() {
        let model = NotificationModel()
        model.handle(.notificationFetched(ANCSNotification(uid: NotificationUID(1), category: .location, app: AppIdentifier("com.apple.Maps"),
                                                            title: "ANCS", message: "Keep right")))
        let intake = BridgedNotificationIntake(model: model)
        intake.received(app: "com.apple.Music", notificationID: "m1", appName: nil, title: "Song", subtitle: nil, body: nil)
        intake.received(app: "com.spotify.client", notificationID: "m2", appName: nil, title: "Other", subtitle: nil, body: nil)
        intake.removedAll()
        XCTAssertEqual(model.shown.map { $0.title }, ["ANCS"])
    }

    /// A forwarded Maps instruction is its own source: an ANCS session that
    /// ends (or is re-subscribed) leaves it on screen, and it does not make
    /// the ANCS client expect updates that only NotifBridge brings.
    func testAnANCSSessionEndingLeavesForwardedNotifications() {
        let model = NotificationModel()
        let intake = BridgedNotificationIntake(model: model)
        intake.received(app: "com.google.Maps", notificationID: "n1", appName: "Google Maps", title: "200 m", subtitle: nil, body: "Turn left")
        XCTAssertFalse(model.expectsUpdates, "ANCS has nothing to update")
        model.handle(.notificationFetched(ANCSNotification(uid: NotificationUID(0x8000_0000), category: .location,
                                                            app: AppIdentifier("com.apple.Maps"), title: "ANCS", message: "Keep right")))
        XCTAssertTrue(model.expectsUpdates)
        XCTAssertEqual(model.shown.map { $0.source }, [.notifBridge, .ancs], "the same UID in two sources is two notifications")
        _ = drain(model)
        model.handle(.sessionEnded)
        XCTAssertEqual(model.shown.map { $0.message }, ["Turn left"])
        XCTAssertEqual(model.navigation?.message, "Turn left")
        XCTAssertFalse(model.expectsUpdates)
        let events = drain(model)
        XCTAssertEqual(events.map { $0.action }, [.removed])
        XCTAssertEqual(events.map { $0.source }, [.ancs])
        // An ANCS removal of the same UID does not touch the forwarded one.
        model.handle(.notificationRemoved(ANCSNotification(uid: NotificationUID(0x8000_0000), category: .location, app: AppIdentifier("com.apple.Maps"))))
        XCTAssertEqual(model.shown.count, 1)
        intake.received(app: "com.google.Maps", notificationID: "n1", appName: "Google Maps", title: "50 m", subtitle: nil, body: "Turn left now")
        XCTAssertEqual(drain(model).map { $0.source }, [.notifBridge])
    }
}
