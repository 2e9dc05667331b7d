import BluetoothCore
import Testing
@testable import ANCS

/// The ANCS client driven through its owner's side: the GATT operations it
/// asks for, and what it makes of the phone's answers.
@Suite struct ANCSClientTests {
    typealias H = ANCSHarness

    // MARK: - Setup

    @Test func dataSourceIsSubscribedBeforeTheNotificationSource() {
        let h = H()
        h.client.start(now: h.now)
        #expect(h.drain() == [.discover(h.handle)])
        h.client.discoveryCompleted(.found([.notificationSource, .controlPoint, .dataSource]), now: h.now)
        #expect(h.drain() == [.subscribe(h.handle, .dataSource)])
        h.client.subscribeCompleted(.dataSource, .done, now: h.now)
        #expect(h.drain() == [.subscribe(h.handle, .notificationSource)])
        #expect(!h.client.isSessionActive)
        h.client.subscribeCompleted(.notificationSource, .done, now: h.now)
        // The session opens with a liveness probe: it tells a quiet phone
        // from one that does not share its notifications.
        #expect(h.drain() == [.event(.sessionStarted), h.write(H.probe)])
        #expect(h.client.isSessionActive)
    }

    @Test func absentUntilServiceChanged() {
        let h = H()
        h.client.start(now: h.now)
        h.drain()
        h.client.discoveryCompleted(.absent, now: h.now)
        #expect(h.drain() == [.event(.serviceAbsent)])
        #expect(h.client.nextDeadline == nil)
        // After bonding iOS publishes ANCS and says so with Service Changed.
        h.client.serviceChanged(now: h.now)
        #expect(h.drain() == [.discover(h.handle)])
        h.client.discoveryCompleted(.found([.notificationSource, .controlPoint]), now: h.now)
        #expect(h.drain() == [.event(.serviceAbsent)]) // no Data Source: not usable
    }

    @Test func serviceChangedDuringASessionEndsItAndRediscovers() {
        let h = H()
        h.startSession()
        _ = h.source(Phone.notificationSource(.added, category: .location, uid: 1))
        h.client.serviceChanged(now: h.now)
        #expect(h.drain() == [.event(.sessionEnded), .discover(h.handle)])
        #expect(h.client.notifications.isEmpty)
    }

    @Test func preExistingNotificationsArriveBeforeTheSubscriptionIsConfirmed() {
        let h = H()
        h.client.start(now: h.now)
        h.client.discoveryCompleted(.found([.notificationSource, .controlPoint, .dataSource]), now: h.now)
        h.client.subscribeCompleted(.dataSource, .done, now: h.now)
        h.drain()
        let actions = h.source(Phone.notificationSource(.added, flags: [.preExisting], category: .location, uid: 5))
        #expect(actions == [.event(.sessionStarted), h.write(H.probe)])
        #expect(h.written(.attError(0xA2)) == [h.write(H.identify(5))])
        h.client.subscribeCompleted(.notificationSource, .done, now: h.now)
        #expect(h.drain().isEmpty)
    }

    // MARK: - Maps: identify, then text

    @Test func mapsInstructionIsIdentifiedThenFetched() {
        let h = H()
        h.startSession()
        // The turn instruction already exists when the car starts.
        #expect(h.source(Phone.notificationSource(.added, flags: [.preExisting], category: .location, uid: 0x10))
                == [h.write(H.identify(0x10))])
        #expect(h.written().isEmpty)
        // AppIdentifier in: the filter wants it, and its display name is unknown.
        #expect(h.data(Phone.notificationAttributes(uid: 0x10, [(.appIdentifier, "com.google.Maps")]))
                == [h.write(.getAppAttributes(AppIdentifier("com.google.Maps"), [.displayName]))])
        #expect(h.written().isEmpty)
        #expect(h.data(Phone.appAttributes(app: "com.google.Maps", displayName: "Google Maps"))
                == [.event(.appNameLearned(AppIdentifier("com.google.Maps"), "Google Maps")), h.write(H.text(0x10))])
        #expect(h.written().isEmpty)
        let response = Phone.notificationAttributes(uid: 0x10, [
            (.title, "200 m"), (.subtitle, ""), (.message, "Turn left onto Main St"), (.date, "20240611T081530"),
        ])
        // At MTU 23 the answer comes in 20-byte pieces.
        var actions: [ANCSAction] = []
        for fragment in Phone.fragments(response, payload: 20) { actions += h.data(fragment) }
        let expected = ANCSNotification(uid: NotificationUID(0x10), category: .location, categoryCount: 1,
                                        flags: [.preExisting], app: AppIdentifier("com.google.Maps"), appName: "Google Maps",
                                        title: "200 m", subtitle: "", message: "Turn left onto Main St", date: "20240611T081530")
        #expect(actions == [.event(.notificationFetched(expected))])
        #expect(h.client.appNames.name(for: AppIdentifier("com.google.Maps")) == "Google Maps")
    }

    @Test func dataSourceAnswerBeforeTheWriteResponseIsAccepted() {
        let h = H()
        h.startSession()
        _ = h.source(Phone.notificationSource(.added, category: .social, uid: 3))
        // The phone's answer overtakes the write confirmation.
        #expect(h.data(Phone.notificationAttributes(uid: 3, [(.appIdentifier, "com.apple.MobileSMS")])).count == 1)
        _ = h.source(Phone.notificationSource(.added, category: .social, uid: 4))
        #expect(h.controlPointWrites.count == 1) // nothing new before the write result
        #expect(h.written() == [h.write(H.identify(4))])
    }

    // MARK: - Privacy

    @Test func aChatMessageNeverHasItsTextRequested() {
        let h = H()
        h.startSession()
        #expect(h.source(Phone.notificationSource(.added, category: .social, uid: 0x21)) == [h.write(H.identify(0x21))])
        h.written()
        let actions = h.data(Phone.notificationAttributes(uid: 0x21, [(.appIdentifier, "com.apple.MobileSMS")]))
        let dropped = ANCSNotification(uid: NotificationUID(0x21), category: .social, categoryCount: 1,
                                       app: AppIdentifier("com.apple.MobileSMS"))
        #expect(actions == [.event(.notificationDropped(dropped))])
        // A change to it runs the filter again, on its AppIdentifier alone;
        // still dropped, it is not reported twice.
        #expect(h.source(Phone.notificationSource(.modified, category: .social, count: 2, uid: 0x21)) == [h.write(H.identify(0x21))])
        h.written()
        #expect(h.data(Phone.notificationAttributes(uid: 0x21, [(.appIdentifier, "com.apple.MobileSMS")])).isEmpty)
        // Every write that ever named this UID asked for the AppIdentifier alone.
        #expect(h.controlPointWrites == [H.identify(0x21).bytes, H.identify(0x21).bytes])
        #expect(h.filterCalls.count == 2)
        #expect(h.filterCalls.allSatisfy { $0.title == nil && $0.message == nil })
        // Its removal is reported (it was reported as dropped).
        #expect(h.source(Phone.notificationSource(.removed, category: .social, count: 0, uid: 0x21))
                == [.event(.notificationRemoved(ANCSNotification(uid: NotificationUID(0x21), category: .social, categoryCount: 0,
                                                                 app: AppIdentifier("com.apple.MobileSMS"))))])
    }

    // MARK: - Notification Source handling

    @Test func duplicateUIDsAreOneNotification() {
        let h = H()
        h.startSession()
        #expect(h.source(Phone.notificationSource(.added, category: .location, uid: 7)).count == 1)
        #expect(h.source(Phone.notificationSource(.added, flags: [.preExisting], category: .location, uid: 7)).isEmpty)
        #expect(h.client.notifications.count == 1)
        #expect(h.client.pendingRequestCount == 1)
    }

    @Test func malformedNotificationSourceValuesAreDropped() {
        let h = H()
        h.startSession()
        #expect(h.source([0, 0, 10, 1, 7, 0, 0]).isEmpty)
        #expect(h.source([9, 0, 10, 1, 7, 0, 0, 0]).isEmpty)
        #expect(h.source([0, 0, 10, 1, 7, 0, 0, 0, 0]).isEmpty)
        #expect(h.client.notifications.isEmpty)
    }

    @Test func requestsGoOneAtATime() {
        let h = H()
        h.startSession()
        #expect(h.source(Phone.notificationSource(.added, category: .social, uid: 1)) == [h.write(H.identify(1))])
        #expect(h.source(Phone.notificationSource(.added, category: .email, uid: 2)).isEmpty)
        #expect(h.source(Phone.notificationSource(.added, category: .news, uid: 3)).isEmpty)
        #expect(h.written().isEmpty)
        #expect(h.data(Phone.notificationAttributes(uid: 1, [(.appIdentifier, "a")])).count == 2) // dropped + next write
        #expect(h.controlPointWrites == [H.identify(1).bytes, H.identify(2).bytes])
    }

    @Test func modificationRefetchesTheText() {
        let h = fetchedMaps(uid: 0x30)
        #expect(h.source(Phone.notificationSource(.modified, category: .location, uid: 0x30)) == [h.write(H.text(0x30))])
        h.written()
        let actions = h.data(Phone.notificationAttributes(uid: 0x30, [
            (.title, "50 m"), (.subtitle, ""), (.message, "Turn left onto Main St"), (.date, "20240611T081600"),
        ]))
        guard case .event(.notificationFetched(let n)) = actions.first else {
            Issue.record("not fetched")
            return
        }
        #expect(n.title == "50 m")
    }

    @Test func modificationWhileTheTextIsInFlightFetchesAgainAfterwards() {
        let h = H(appNames: mapsKnown())
        h.startSession()
        _ = h.source(Phone.notificationSource(.added, category: .location, uid: 0x31))
        h.written()
        #expect(h.data(Phone.notificationAttributes(uid: 0x31, [(.appIdentifier, "com.google.Maps")])) == [h.write(H.text(0x31))])
        h.written()
        #expect(h.source(Phone.notificationSource(.modified, category: .location, uid: 0x31)).isEmpty)
        let actions = h.data(Phone.notificationAttributes(uid: 0x31, [(.title, "1 km"), (.subtitle, ""), (.message, "m"), (.date, "d")]))
        #expect(actions.count == 2)
        #expect(actions.last == h.write(H.text(0x31)))
    }

    @Test func removalCancelsQueuedRequestsAndIsReportedWhenShown() {
        let h = fetchedMaps(uid: 0x40)
        _ = h.source(Phone.notificationSource(.added, category: .social, uid: 0x41))
        _ = h.source(Phone.notificationSource(.added, category: .social, uid: 0x42)) // queued
        _ = h.source(Phone.notificationSource(.removed, category: .social, uid: 0x42))
        let removed = h.source(Phone.notificationSource(.removed, category: .location, count: 0, uid: 0x40))
        guard case .event(.notificationRemoved(let n)) = removed.first else {
            Issue.record("no removal")
            return
        }
        #expect(n.title == "200 m")
        h.written()
        _ = h.data(Phone.notificationAttributes(uid: 0x41, [(.appIdentifier, "com.apple.MobileSMS")]))
        #expect(!h.controlPointWrites.contains(H.identify(0x42).bytes))
    }

    // MARK: - Responses that do not match, timeouts

    @Test func mismatchedResponseIsDiscardedAndTheQueueGoesOn() {
        let h = H(appNames: mapsKnown())
        twoLocationNotifications(h, 0x50, 0x51)
        // A late answer for another UID, then one with the wrong command.
        #expect(h.data(Phone.notificationAttributes(uid: 0x99, [(.appIdentifier, "com.google.Maps")])).isEmpty)
        #expect(h.data(Phone.appAttributes(app: "com.google.Maps", displayName: "Maps")).isEmpty)
        // The right answer still completes the request; the next one goes out.
        #expect(h.data(Phone.notificationAttributes(uid: 0x50, [(.appIdentifier, "com.google.Maps")])) == [h.write(H.text(0x50))])
    }

    @Test func timeoutFailsOnlyThatRequest() {
        var configuration = ANCSConfiguration()
        configuration.requestTimeoutMilliseconds = 5000
        let h = H(configuration: configuration, appNames: mapsKnown())
        twoLocationNotifications(h, 0x60, 0x61)
        #expect(h.client.nextDeadline == h.now.adding(milliseconds: 5000))
        #expect(h.advance(milliseconds: 4999).isEmpty)
        // The phone never answers 0x60: given up, 0x61 goes next.
        #expect(h.advance(milliseconds: 1) == [h.write(H.identify(0x61))])
        h.written()
        #expect(h.data(Phone.notificationAttributes(uid: 0x61, [(.appIdentifier, "com.google.Maps")])) == [h.write(H.text(0x61))])
        // A late answer for 0x60 is discarded; 0x60 is asked again on its next change.
        #expect(h.data(Phone.notificationAttributes(uid: 0x60, [(.appIdentifier, "com.google.Maps")])).isEmpty)
        h.written()
        _ = h.data(Phone.notificationAttributes(uid: 0x61, [(.title, "t"), (.subtitle, ""), (.message, "m"), (.date, "d")]))
        #expect(h.source(Phone.notificationSource(.modified, category: .location, uid: 0x60)) == [h.write(H.identify(0x60))])
    }

    @Test func malformedResponseFailsTheRequestAndLaterFragmentsAreDropped() {
        let h = H(appNames: mapsKnown())
        twoLocationNotifications(h, 0x70, 0x71)
        // AppIdentifier claiming 4000 bytes: over the limit.
        #expect(h.data([0x00, 0x70, 0, 0, 0, 0x00, 0xA0, 0x0F, 0x41, 0x41]) == [h.write(H.identify(0x71))])
        // The rest of that broken response arrives: not a response start, dropped.
        #expect(h.data([UInt8](repeating: 0x41, count: 20)).isEmpty)
        h.written()
        #expect(h.data(Phone.notificationAttributes(uid: 0x71, [(.appIdentifier, "com.google.Maps")])) == [h.write(H.text(0x71))])
    }

    // MARK: - Control Point errors

    @Test func invalidParameterAffectsOnlyThatUID() {
        let h = H(appNames: mapsKnown())
        twoLocationNotifications(h, 0x80, 0x81)
        _ = h.data(Phone.notificationAttributes(uid: 0x80, [(.appIdentifier, "com.google.Maps")]))
        // Text of 0x80 goes before the queued identification of 0x81.
        #expect(h.controlPointWrites.last == H.text(0x80).bytes)
        // 0x80 vanished on the phone meanwhile.
        #expect(h.written(.attError(0xA2)) == [h.write(H.identify(0x81))])
        #expect(h.client.notification(NotificationUID(0x80)) == nil)
        #expect(h.client.notification(NotificationUID(0x81)) != nil)
    }

    @Test func otherANCSErrorsAreLoggedAndTheQueueGoesOn() {
        let h = H()
        h.startSession()
        for uid: UInt32 in 1...5 { _ = h.source(Phone.notificationSource(.added, category: .social, uid: uid)) }
        #expect(h.written(.attError(0xA0)) == [h.write(H.identify(2))])
        #expect(h.written(.attError(0xA1)) == [h.write(H.identify(3))])
        #expect(h.written(.attError(0xA3)) == [h.write(H.identify(4))])
        #expect(!h.events.contains(.sharingDisabled(.switchedOff)) && !h.events.contains(.sharingDisabled(.notAllowed)))
        // The failed ones stay (unidentified) and are tried again on their next change.
        #expect(h.client.notifications.count == 5)
    }

    /// Insufficient Authentication or Encryption: the phone does not take
    /// this link as secure (it lost the bond, or wants a stronger key). That
    /// is for the Security Manager to mend, not the user's sharing switch.
    @Test(arguments: [UInt8(0x05), 0x0F])
    func securityErrorsOnTheControlPointAskForSecurity(code: UInt8) {
        var configuration = ANCSConfiguration()
        configuration.subscribeRetryMilliseconds = 2000
        let h = H(configuration: configuration)
        h.startSession()
        _ = h.source(Phone.notificationSource(.added, category: .location, uid: 1))
        _ = h.source(Phone.notificationSource(.added, category: .location, uid: 2))
        #expect(h.written(.attError(code)) == [.event(.securityRequired), .event(.sessionEnded)])
        #expect(!h.client.isSharingDisabled)
        // Once the link is secured again the session is set up afresh.
        #expect(h.advance(milliseconds: 2000) == [.discover(h.handle)])
    }

    @Test(arguments: [UInt8(0x05), 0x0F])
    func securityErrorsOnTheProbeAskForSecurity(code: UInt8) {
        let h = H()
        h.startSession()
        _ = h.advance(milliseconds: h.client.configuration.probeIntervalMilliseconds)
        #expect(h.written(.attError(code)) == [.event(.securityRequired), .event(.sessionEnded)])
        #expect(!h.events.contains(.sharingDisabled(.switchedOff)) && !h.events.contains(.sharingDisabled(.notAllowed)))
    }

    @Test(arguments: [UInt8(0x05), 0x0F])
    func securityErrorsOnASubscriptionAskForSecurity(code: UInt8) {
        let h = H()
        h.client.start(now: h.now)
        h.client.discoveryCompleted(.found([.notificationSource, .controlPoint, .dataSource]), now: h.now)
        h.drain()
        h.client.subscribeCompleted(.dataSource, .attError(code), now: h.now)
        #expect(h.drain() == [.event(.securityRequired)])
        #expect(!h.client.isSharingDisabled)
    }

    @Test(arguments: [(UInt8(0x03), SharingRefusal.switchedOff), (0x08, .notAllowed)])
    func notAllowedOnTheControlPointMeansSharingIsOff(code: UInt8, refusal: SharingRefusal) {
        let h = H()
        h.startSession()
        _ = h.source(Phone.notificationSource(.added, category: .location, uid: 1))
        _ = h.source(Phone.notificationSource(.added, category: .location, uid: 2))
        #expect(h.written(.attError(code)) == [.event(.sharingDisabled(refusal)), h.write(H.identify(2))])
        #expect(h.client.sharingRefusal == refusal)
        // Said once, not for every refused write.
        #expect(h.written(.attError(code)).isEmpty)
        // The user switches it on: the next write is accepted.
        _ = h.source(Phone.notificationSource(.modified, category: .location, uid: 2))
        #expect(h.written() == [.event(.sharingRestored)])
    }

    /// The driver taps Don't Allow, then switches sharing off in Settings
    /// (or the other way round): each new reason is said once.
    @Test func aNewReasonForRefusingIsSaidAgain() {
        let h = H()
        h.startSession()
        for uid: UInt32 in 1...3 { _ = h.source(Phone.notificationSource(.added, category: .location, uid: uid)) }
        #expect(h.written(.attError(0x08)).first == .event(.sharingDisabled(.notAllowed)))
        #expect(h.written(.attError(0x03)).first == .event(.sharingDisabled(.switchedOff)))
        #expect(h.written(.attError(0x03)).isEmpty)
        #expect(h.client.sharingRefusal == .switchedOff)
    }

    @Test func refusedSubscriptionIsRetried() {
        var configuration = ANCSConfiguration()
        configuration.subscribeRetryMilliseconds = 2000
        let h = H(configuration: configuration)
        h.client.start(now: h.now)
        h.client.discoveryCompleted(.found([.notificationSource, .controlPoint, .dataSource]), now: h.now)
        h.client.subscribeCompleted(.dataSource, .done, now: h.now)
        h.drain()
        h.client.subscribeCompleted(.notificationSource, .attError(0x03), now: h.now)
        #expect(h.drain() == [.event(.sharingDisabled(.switchedOff))])
        #expect(h.advance(milliseconds: 2000) == [.discover(h.handle)])
    }

    /// Insufficient Authorization on a subscription: the "Allow
    /// notifications?" prompt is still open on the iPhone. Tried again soon,
    /// not after the full retry, so notifications come once the driver allows.
    @Test func subscriptionAwaitingThePromptIsRetriedSoon() {
        var configuration = ANCSConfiguration()
        configuration.subscribeRetryMilliseconds = 60_000
        configuration.authorizationRetryMilliseconds = 3_000
        let h = H(configuration: configuration)
        h.client.start(now: h.now)
        h.client.discoveryCompleted(.found([.notificationSource, .controlPoint, .dataSource]), now: h.now)
        h.drain()
        h.client.subscribeCompleted(.dataSource, .attError(0x08), now: h.now)
        #expect(h.drain() == [.event(.sharingDisabled(.notAllowed))])
        #expect(h.advance(milliseconds: 2_999).isEmpty)
        #expect(h.advance(milliseconds: 1) == [.discover(h.handle)])
        // Write Not Permitted is the user's switch: the long wait stands.
        h.client.discoveryCompleted(.found([.notificationSource, .controlPoint, .dataSource]), now: h.now)
        h.drain()
        h.client.subscribeCompleted(.dataSource, .attError(0x03), now: h.now)
        h.drain()
        #expect(h.advance(milliseconds: 3_000).isEmpty)
        #expect(h.advance(milliseconds: 57_000) == [.discover(h.handle)])
    }

    /// The driver declined "Allow notifications" (or has not answered):
    /// tried again 3 s later (the first notification comes about 3 s after
    /// a tap on Allow), then less and less often up to the cap, and from
    /// 3 s again once the phone accepted.
    @Test func aDeclinedPromptIsRetriedLessAndLessOftenUpToTheCap() {
        var configuration = ANCSConfiguration()
        configuration.authorizationRetryMilliseconds = 3_000
        configuration.authorizationRetryLimitMilliseconds = 300_000
        let h = H(configuration: configuration)
        h.client.start(now: h.now)
        h.drain()
        func refuseSubscription() {
            h.client.discoveryCompleted(.found([.notificationSource, .controlPoint, .dataSource]), now: h.now)
            #expect(h.drain() == [.subscribe(h.handle, .dataSource)])
            h.client.subscribeCompleted(.dataSource, .attError(0x08), now: h.now)
            h.drain()
        }
        for wait: Int64 in [3_000, 6_000, 12_000, 24_000, 48_000, 96_000, 192_000, 300_000, 300_000] {
            refuseSubscription()
            #expect(h.advance(milliseconds: wait - 1).isEmpty, "not before \(wait) ms")
            #expect(h.advance(milliseconds: 1) == [.discover(h.handle)], "after \(wait) ms")
        }
        // The driver allows: the session starts, and the wait starts over.
        h.client.discoveryCompleted(.found([.notificationSource, .controlPoint, .dataSource]), now: h.now)
        h.client.subscribeCompleted(.dataSource, .done, now: h.now)
        h.client.subscribeCompleted(.notificationSource, .done, now: h.now)
        #expect(h.drain().contains(.event(.sessionStarted)))
        h.client.controlPointWriteCompleted(.attError(0xA2), now: h.now)
        h.client.serviceChanged(now: h.now)
        #expect(h.drain().last == .discover(h.handle))
        refuseSubscription()
        #expect(h.advance(milliseconds: 3_000) == [.discover(h.handle)])
    }

    /// iOS keeps answering 0x05 on an encrypted link: the link is paired
    /// again at most `securityRequestLimit` times, then the driver is told
    /// (`securityRefusedRepeatedly`, once) and ANCS is only tried again,
    /// at the cap, without asking for another pairing. A Control Point
    /// that answers resets the count.
    @Test func insufficientAuthenticationPairsAgainAtMostTwiceThenAsksTheDriver() {
        var configuration = ANCSConfiguration()
        configuration.subscribeRetryMilliseconds = 2_000
        configuration.authorizationRetryLimitMilliseconds = 300_000
        let h = H(configuration: configuration)
        h.startSession()
        /// After the retry: discovery and both subscriptions succeed, and
        /// the opening probe gets `probeAnswer`.
        func resume(probeAnswer: RemoteOperationResult) -> [ANCSAction] {
            h.client.discoveryCompleted(.found([.notificationSource, .controlPoint, .dataSource]), now: h.now)
            h.client.subscribeCompleted(.dataSource, .done, now: h.now)
            h.client.subscribeCompleted(.notificationSource, .done, now: h.now)
            h.drain()
            return h.written(probeAnswer)
        }
        _ = h.source(Phone.notificationSource(.added, category: .location, uid: 1))
        #expect(h.written(.attError(0x05)) == [.event(.securityRequired), .event(.sessionEnded)])
        #expect(h.advance(milliseconds: 2_000) == [.discover(h.handle)])
        #expect(resume(probeAnswer: .attError(0x05)) == [.event(.securityRequired), .event(.sessionEnded)])
        #expect(h.advance(milliseconds: 2_000) == [.discover(h.handle)])
        // The third refusal: no third pairing.
        #expect(resume(probeAnswer: .attError(0x0F)) == [.event(.securityRefusedRepeatedly), .event(.sessionEnded)])
        #expect(h.advance(milliseconds: 2_000).isEmpty)
        #expect(h.advance(milliseconds: 298_000) == [.discover(h.handle)])
        #expect(resume(probeAnswer: .attError(0x05)) == [.event(.sessionEnded)], "said once")
        #expect(h.advance(milliseconds: 300_000) == [.discover(h.handle)])
        // The phone answers at last: the count starts over.
        #expect(resume(probeAnswer: .attError(0xA2)).isEmpty)
        _ = h.source(Phone.notificationSource(.added, category: .location, uid: 2))
        #expect(h.written(.attError(0x05)) == [.event(.securityRequired), .event(.sessionEnded)])
    }

    /// The same limit when the refusal comes on the subscription.
    @Test func insufficientAuthenticationOnSubscriptionsIsLimitedToo() {
        var configuration = ANCSConfiguration()
        configuration.subscribeRetryMilliseconds = 2_000
        let h = H(configuration: configuration)
        h.client.start(now: h.now)
        h.drain()
        var events: [ANCSAction] = []
        for _ in 0..<4 {
            h.client.discoveryCompleted(.found([.notificationSource, .controlPoint, .dataSource]), now: h.now)
            h.drain()
            h.client.subscribeCompleted(.dataSource, .attError(0x05), now: h.now)
            events += h.drain()
            _ = h.advance(milliseconds: configuration.authorizationRetryLimitMilliseconds)
        }
        #expect(events == [.event(.securityRequired), .event(.securityRequired), .event(.securityRefusedRepeatedly)])
    }

    // MARK: - Actions

    @Test func performNotificationAction() {
        let h = H()
        h.startSession()
        _ = h.source(Phone.notificationSource(.added, flags: [.positiveAction], category: .incomingCall, uid: 0x90))
        h.written()
        _ = h.data(Phone.notificationAttributes(uid: 0x90, [(.appIdentifier, "com.apple.mobilephone")]))
        #expect(!h.client.performAction(.negative, on: NotificationUID(0x90), now: h.now)) // not offered
        #expect(!h.client.performAction(.positive, on: NotificationUID(0x91), now: h.now)) // unknown
        #expect(h.client.performAction(.positive, on: NotificationUID(0x90), now: h.now))
        #expect(h.drain() == [.writeControlPoint(h.handle, [0x02, 0x90, 0, 0, 0, 0x00])])
        #expect(h.written() == [.event(.actionCompleted(NotificationUID(0x90), .positive, succeeded: true))])
        #expect(h.client.performAction(.positive, on: NotificationUID(0x90), now: h.now))
        h.drain()
        #expect(h.written(.attError(0xA3)) == [.event(.actionCompleted(NotificationUID(0x90), .positive, succeeded: false))])
    }

    // MARK: - App names

    @Test func appNamesAreAskedOncePerApp() {
        let h = fetchedMaps(uid: 1)
        _ = h.source(Phone.notificationSource(.added, category: .location, uid: 2))
        h.written()
        #expect(h.data(Phone.notificationAttributes(uid: 2, [(.appIdentifier, "com.google.Maps")])) == [h.write(H.text(2))])
        let appWrites = h.controlPointWrites.filter { $0.first == CommandID.getAppAttributes.rawValue }
        #expect(appWrites.count == 1)
    }

    // MARK: - Liveness

    @Test func probeExpectsInvalidParameter() {
        var configuration = ANCSConfiguration()
        configuration.probeIntervalMilliseconds = 60_000
        let h = H(configuration: configuration)
        h.startSession()
        #expect(h.client.nextDeadline == h.now.adding(milliseconds: 60_000))
        #expect(h.advance(milliseconds: 60_000) == [h.write(H.identify(0xFFFF_FFFF))])
        #expect(h.written(.attError(0xA2)).isEmpty)
        #expect(h.client.nextDeadline == h.now.adding(milliseconds: 60_000))
        // Successful requests count as proof of life too.
        _ = h.advance(milliseconds: 30_000)
        _ = h.source(Phone.notificationSource(.added, category: .social, uid: 1))
        h.written()
        _ = h.data(Phone.notificationAttributes(uid: 1, [(.appIdentifier, "x")]))
        #expect(h.client.nextDeadline == h.now.adding(milliseconds: 60_000))
    }

    @Test func failedProbeResubscribesBothSources() {
        var configuration = ANCSConfiguration()
        configuration.probeIntervalMilliseconds = 60_000
        configuration.requestTimeoutMilliseconds = 1000
        let h = fetchedMaps(uid: 0x10, configuration: configuration)
        _ = h.advance(milliseconds: 60_000)
        #expect(h.controlPointWrites.last == H.identify(0xFFFF_FFFF).bytes)
        h.written()
        // The phone takes the write but answers nothing: subscriptions are gone.
        // The session ends (the model clears what it showed) and both
        // sources are subscribed again, Notification Source first out.
        #expect(h.advance(milliseconds: 1000) == [.event(.sessionEnded), .unsubscribe(h.handle, .notificationSource)])
        #expect(h.client.notifications.isEmpty)
        h.client.unsubscribeCompleted(.notificationSource, .done, now: h.now)
        #expect(h.drain() == [.unsubscribe(h.handle, .dataSource)])
        h.client.unsubscribeCompleted(.dataSource, .done, now: h.now)
        #expect(h.drain() == [.subscribe(h.handle, .dataSource)])
        h.client.subscribeCompleted(.dataSource, .done, now: h.now)
        #expect(h.drain() == [.subscribe(h.handle, .notificationSource)])
        h.client.subscribeCompleted(.notificationSource, .done, now: h.now)
        #expect(h.drain() == [.event(.sessionStarted), h.write(H.probe)])
        #expect(h.written(.attError(0xA2)).isEmpty)
        // The new session's PreExisting replay brings the instruction back (a new UID maybe).
        #expect(h.source(Phone.notificationSource(.added, flags: [.preExisting], category: .location, uid: 0x10))
                == [h.write(H.identify(0x10))])
    }

    @Test func unexpectedProbeAnswerResubscribes() {
        var configuration = ANCSConfiguration()
        configuration.probeIntervalMilliseconds = 1000
        let h = H(configuration: configuration)
        h.startSession()
        _ = h.advance(milliseconds: 1000)
        #expect(h.written(.attError(0xA1)) == [.event(.sessionEnded), .unsubscribe(h.handle, .notificationSource)])
    }

    @Test func silentNotificationSourceWhileExpectedResubscribes() {
        var configuration = ANCSConfiguration()
        configuration.silenceThresholdMilliseconds = 5000
        let h = H(configuration: configuration)
        h.startSession()
        // Not expected: silence is fine.
        #expect(h.advance(milliseconds: 6000).isEmpty)
        h.client.setNotificationsExpected(true, now: h.now)
        #expect(h.client.nextDeadline == h.now.adding(milliseconds: 5000))
        _ = h.advance(milliseconds: 3000)
        // Any Notification Source value restarts the clock.
        _ = h.source(Phone.notificationSource(.added, category: .social, uid: 1))
        h.written(.attError(0xA2))
        #expect(h.advance(milliseconds: 4999).isEmpty)
        #expect(h.advance(milliseconds: 1) == [.event(.sessionEnded), .unsubscribe(h.handle, .notificationSource)])
    }

    @Test func preExistingReplaysAreNotFreshTraffic() {
        var configuration = ANCSConfiguration()
        configuration.silenceThresholdMilliseconds = 5000
        let h = H(configuration: configuration)
        h.startSession()
        h.client.setNotificationsExpected(true, now: h.now)
        _ = h.advance(milliseconds: 3000)
        // A replay of what the phone already held says nothing about whether
        // it still pushes changes: the silence clock runs on.
        _ = h.source(Phone.notificationSource(.added, flags: [.preExisting], category: .location, uid: 1))
        h.written(.attError(0xA2))
        #expect(h.advance(milliseconds: 2000) == [.event(.sessionEnded), .unsubscribe(h.handle, .notificationSource)])
    }

    /// The probe proves only the Control Point path: a phone that answers it
    /// but has pushed nothing for hours gets both CCCDs written again.
    @Test func hoursWithoutNotificationSourceTrafficRewriteTheSubscriptions() {
        var configuration = ANCSConfiguration()
        configuration.probeIntervalMilliseconds = 15 * 60 * 1000
        let h = H(configuration: configuration)
        #expect(configuration.notificationSourceSilenceLimitMilliseconds == Int64(3 * 60 * 60 * 1000))
        h.startSession()
        _ = h.source(Phone.notificationSource(.added, category: .social, uid: 1))
        h.written(.attError(0xA2))
        let lastPush = h.now
        // Every 15 minutes the probe is answered as it should be.
        var resubscribedAfter: Int64?
        for _ in 1...16 {
            #expect(h.advance(milliseconds: 15 * 60 * 1000) == [h.write(H.probe)])
            let after = h.written(.attError(0xA2))
            if !after.isEmpty {
                #expect(after == [.event(.sessionEnded), .unsubscribe(h.handle, .notificationSource)])
                resubscribedAfter = h.now.millisecondsSince(lastPush)
                break
            }
        }
        let threeHours: Int64 = 3 * 60 * 60 * 1000
        #expect(resubscribedAfter == threeHours)
        h.client.unsubscribeCompleted(.notificationSource, .done, now: h.now)
        #expect(h.drain() == [.unsubscribe(h.handle, .dataSource)])
        h.client.unsubscribeCompleted(.dataSource, .done, now: h.now)
        #expect(h.drain() == [.subscribe(h.handle, .dataSource)])
        h.client.subscribeCompleted(.dataSource, .done, now: h.now)
        h.client.subscribeCompleted(.notificationSource, .done, now: h.now)
        #expect(h.drain() == [.subscribe(h.handle, .notificationSource), .event(.sessionStarted), h.write(H.probe)])
        #expect(h.written(.attError(0xA2)).isEmpty)
        // The count starts again: a push now and then keeps the subscriptions as they are.
        for step in 1...16 {
            if step % 8 == 0 {
                _ = h.source(Phone.notificationSource(.added, category: .social, uid: UInt32(10 + step)))
                h.written(.attError(0xA2))
            }
            _ = h.advance(milliseconds: 15 * 60 * 1000)
            #expect(h.written(.attError(0xA2)).isEmpty)
        }
    }

    // MARK: - Session end

    @Test func disconnectionClearsTheSessionAndUIDsAreNotReused() {
        let h = fetchedMaps(uid: 0x10)
        _ = h.source(Phone.notificationSource(.added, flags: [.positiveAction], category: .location, uid: 0x11))
        h.client.disconnected(now: h.now)
        #expect(h.drain() == [.event(.sessionEnded)])
        #expect(h.client.notifications.isEmpty)
        #expect(h.client.pendingRequestCount == 0)
        #expect(!h.client.performAction(.positive, on: NotificationUID(0x11), now: h.now))
        // A late write result from the old link changes nothing.
        #expect(h.written(.attError(0xA2)).isEmpty)
        // Next link: the same UID number is a new notification, identified afresh.
        h.startSession()
        #expect(h.source(Phone.notificationSource(.added, flags: [.preExisting], category: .location, uid: 0x10))
                == [h.write(H.identify(0x10))])
    }

    @Test func stopUnsubscribes() {
        let h = H()
        h.startSession()
        h.client.stop(now: h.now)
        #expect(h.drain() == [.event(.sessionEnded), .unsubscribe(h.handle, .notificationSource)])
        h.client.unsubscribeCompleted(.notificationSource, .done, now: h.now)
        #expect(h.drain() == [.unsubscribe(h.handle, .dataSource)])
        h.client.unsubscribeCompleted(.dataSource, .failed, now: h.now)
        #expect(h.drain().isEmpty)
        #expect(h.client.nextDeadline == nil)
    }

    @Test func storeIsBounded() {
        var configuration = ANCSConfiguration()
        configuration.maximumNotifications = 3
        let h = H(configuration: configuration)
        h.startSession()
        for uid: UInt32 in 1...3 {
            _ = h.source(Phone.notificationSource(.added, category: .social, uid: uid))
            if uid == 1 { h.written() }
        }
        _ = h.data(Phone.notificationAttributes(uid: 1, [(.appIdentifier, "com.apple.MobileSMS")])) // dropped
        _ = h.source(Phone.notificationSource(.added, category: .social, uid: 4))
        #expect(h.client.notifications.map { $0.uid.value } == [2, 3, 4])
    }

    // MARK: - Helpers

    /// Session started, two Location notifications added, the first one's
    /// identification written and confirmed.
    func twoLocationNotifications(_ h: ANCSHarness, _ first: UInt32, _ second: UInt32) {
        h.startSession()
        _ = h.source(Phone.notificationSource(.added, category: .location, uid: first))
        _ = h.source(Phone.notificationSource(.added, category: .location, uid: second))
        h.written()
    }

    func mapsKnown() -> AppNameCache {
        var cache = AppNameCache()
        cache.insert("Google Maps", for: AppIdentifier("com.google.Maps"))
        return cache
    }

    /// A session with one Google Maps notification fetched ("200 m").
    func fetchedMaps(uid: UInt32, configuration: ANCSConfiguration = ANCSConfiguration()) -> ANCSHarness {
        let h = H(configuration: configuration)
        h.startSession()
        _ = h.source(Phone.notificationSource(.added, category: .location, uid: uid))
        h.written()
        _ = h.data(Phone.notificationAttributes(uid: uid, [(.appIdentifier, "com.google.Maps")]))
        h.written()
        _ = h.data(Phone.appAttributes(app: "com.google.Maps", displayName: "Google Maps"))
        h.written()
        let actions = h.data(Phone.notificationAttributes(uid: uid, [
            (.title, "200 m"), (.subtitle, ""), (.message, "Turn left onto Main St"), (.date, "20240611T081530"),
        ]))
        precondition(actions.count == 1)
        return h
    }
}

/// The app-name cache and its persisted form.
@Suite struct AppNameCacheTests {
    @Test func roundTrip() throws {
        var cache = AppNameCache()
        cache.insert("Google Maps", for: AppIdentifier("com.google.Maps"))
        cache.insert("Spotify", for: AppIdentifier("com.spotify.client"))
        cache.insert("Plans", for: AppIdentifier("com.apple.Maps"))
        let bytes = cache.encoded()
        #expect(bytes.first == 1)
        #expect(Array(bytes[1...2]) == [3, 0])
        let restored = try AppNameCache(decoding: bytes)
        #expect(restored == cache)
        #expect(restored.name(for: AppIdentifier("com.apple.Maps")) == "Plans")
    }

    @Test func emptyCache() throws {
        #expect(AppNameCache().encoded() == [1, 0, 0])
        #expect(try AppNameCache(decoding: [1, 0, 0]).isEmpty)
    }

    @Test func damagedOrNewerFilesAreRefused() {
        #expect(throws: AppNameCache.DecodeError.truncated) { try AppNameCache(decoding: []) }
        #expect(throws: AppNameCache.DecodeError.unknownVersion(2)) { try AppNameCache(decoding: [2, 0, 0]) }
        #expect(throws: AppNameCache.DecodeError.truncated) { try AppNameCache(decoding: [1, 1, 0, 5, 0x61]) }
        #expect(throws: AppNameCache.DecodeError.trailingBytes(1)) { try AppNameCache(decoding: [1, 0, 0, 9]) }
    }

    @Test func oldestEntryGoesWhenFull() {
        var cache = AppNameCache(capacity: 2)
        cache.insert("A", for: AppIdentifier("a"))
        cache.insert("B", for: AppIdentifier("b"))
        let changed = cache.insert("B", for: AppIdentifier("b"))
        #expect(!changed)
        cache.insert("C", for: AppIdentifier("c"))
        #expect(cache.entries.map { $0.name } == ["B", "C"])
    }

    @Test func longNamesAreCutAtACharacterBoundary() {
        let long = String(repeating: "é", count: 200) // 400 bytes
        var cache = AppNameCache()
        cache.insert(long, for: AppIdentifier("x"))
        let name = cache.name(for: AppIdentifier("x"))!
        #expect(name.utf8.count == 254)
        #expect(clampUTF8("Zürich", maxBytes: 2) == "Z")
        #expect(clampUTF8("Zürich", maxBytes: 3) == "Zü")
    }
}
