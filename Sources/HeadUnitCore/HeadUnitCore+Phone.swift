import AMS
import ANCS
import BluetoothCore
import HCI
import Input
import Notifications
import ScreenValues

/// The phone's notifications and now-playing: ANCS and AMS on the encrypted
/// link, the Maps/Music filter and model, and their events.
extension HeadUnitCore {
    /// The link that is the head unit's phone, if any.
    var thePhone: PhoneLink? { links.values.first { $0.isThePhone } }

    /// One phone at a time, decided when a link becomes encrypted, in
    /// either role: the first is the phone; a second one (a Settings iPhone
    /// that paired while the routine checked a phone with the app, or the
    /// other way round) is told so and dropped before anything runs on it,
    /// as both would otherwise feed one notification model keyed by ANCS
    /// UIDs that collide. 0x14 tells the phone the head unit has no room
    /// for it; a phone with the app keeps its name and the head unit keeps
    /// it remembered (docs/PROTOCOL.md §1): it was refused, not unpaired.
    func takeAsThePhone(_ link: PhoneLink, now: Instant) -> Bool {
        if link.isThePhone { return true }  // encrypted again (a key refresh)
        if let phone = thePhone {
            Log.warning("headunit", "one phone at a time: \(phoneName(link)) on \(link.handle) encrypted while "
                + "\(phoneName(phone)) on \(phone.handle) is the phone; disconnecting it")
            report(.anotherPhone)
            host.disconnect(link.handle, reason: .remoteLowResources)
            return false
        }
        link.isThePhone = true
        return true
    }

    private func phoneName(_ link: PhoneLink) -> String {
        link.server ?? (link.role == .peripheral ? "an iPhone from Settings" : "a phone") + " (" + link.peer.description + ")"
    }

    func startAppleServices(_ handle: ConnectionHandle) {
        guard let link = links[handle], link.isThePhone, link.appleServices == nil else { return }
        let s = AppleServices(handle: handle, ancsService: link.ancsService, amsService: link.amsService,
                              configuration: settings.ancs, appNames: kept.appNames, notifications: notifications)
        link.appleServices = s
        s.start(now: clock.now)
        link.readPhoneClock()
        if link.role == .peripheral { link.readDeviceName() }
        link.watchServiceChanged()
    }

    /// Moves one link's ANCS/AMS actions to GATT and their events to the
    /// event log (the link gave ANCS's to the model). True when anything
    /// happened.
    func pumpAppleServices(_ s: AppleServices, now: Instant) -> Bool {
        // Tested and taken, not polled: a `while let` ends on a nil optional
        // of a large enum, destroyed through the generic Optional.
        var progressed = false
        let ancs = s.ancs
        while ancs.hasActions {
            progressed = true
            switch ancs.takeAction() {
            case .event(let event):
                s.pass(event, now: now)
                ancsEvent(event, on: s, now: now)
            case let action:
                s.perform(action, now: now)
            }
        }
        let ams = s.ams
        while ams.hasActions {
            progressed = true
            switch ams.takeAction() {
            case .event(let event): amsEvent(event, now: now)
            case let action: s.perform(action)
            }
        }
        if progressed { emitNotificationEvents() }
        return progressed
    }

    /// The notification model's events, to the event log.
    func emitNotificationEvents() {
        while notifications.hasEvents { emitNotification(notifications.takeEvent()) }
    }

    private func ancsEvent(_ event: ANCSEvent, on s: AppleServices, now: Instant) {
        switch event {
        case .sharingDisabled(let refusal):
            switch refusal {
            case .notAllowed: report(.ancsNotAllowed)
            case .switchedOff: report(.ancsSharingOff)
            }
        case .sharingRestored:
            if shown.hint == .hintAllowNotifications || shown.hint == .hintSharingOff { shown.hint = nil }
        case .serviceAbsent:
            Log.info("ancs", "the phone offers no notifications yet")
        case .securityRequired:
            secureAgain(s.handle, now: now)
        case .securityRefusedRepeatedly:
            // Re-pairing did not help (twice): only the driver can mend it.
            report(.ancsSecurityRefused)
        case .appNameLearned:
            kept.appNames = s.ancs.appNames
            write(.appNames(kept.appNames))
        default:
            break
        }
    }

    private func amsEvent(_ event: AMSEvent, now: Instant) {
        switch event {
        case .nowPlayingChanged(let state):
            shown.nowPlaying = state
            emit(.nowPlaying(state.report(at: now)))
        case .commandFailed(let command):
            Log.info("ams", "the phone refused \(command)")
        case .ready, .supportedCommandsChanged, .serviceAbsent:
            break
        }
    }

    private func emitNotification(_ e: NotificationEvent) {
        // Text goes to the event log (an automation contract), never to the
        // log at the default level.
        Log.debug("ancs", "notification \(e.uid) \(e.action) from \(e.app?.description ?? "?") (\(e.kind))")
        emit(.notification(e))
    }

    /// Sends a media key's AMS remote command to the phone's player; false when no player takes it now.
    public func media(_ command: MediaCommand, now: Instant) -> Bool {
        clock.now = now
        let sent = links.values.contains { $0.appleServices?.ams.send(command.remoteCommand, now: now) ?? false }
        pump()
        return sent
    }
}
