import AMS
import ANCS
import BluetoothCore
import Config
import GATT
import Notifications
import Platform

/// The phone's notifications and now-playing: ANCS and AMS on the encrypted
/// link, the Maps/Music filter and model, and their events.
extension HeadUnit {
    func startAppleServices(_ handle: ConnectionHandle) {
        guard services[handle] == nil, let bearer = bearers[handle] else { return }
        let model = notifications
        let ancs = ANCSClient(connection: handle, configuration: configuration.ancs(), appNames: AppNameStore(files: stateFiles).load(),
                              wantsText: { model.wantsText($0) })
        let s = AppleServices(handle: handle, bearer: bearer, ancs: ancs, ams: AMSClient(connection: handle))
        s.onProgress = { [unowned(unsafe) self] in self.pump() }
        services[handle] = s
        s.start(now: Clock.now())
        readPhoneClock(bearer)
        watchServiceChanged(bearer, services: s)
    }

    /// iOS may publish ANCS only after bonding and says so with a Service
    /// Changed indication: subscribe to it, and rediscover when it comes.
    private func watchServiceChanged(_ bearer: GATTBearer, services s: AppleServices) {
        ServiceDiscovery.discover(BluetoothUUID(0x1801), on: bearer) { [unowned(unsafe) self] outcome in
            guard case .found(let found) = outcome, let changed = found[BluetoothUUID(0x2A05)], let cccd = changed.cccd else {
                Log.debug("gatt", "the phone offers no Service Changed indication")
                return
            }
            bearer.subscribe(valueHandle: changed.value, cccd: cccd, indications: true, onValue: { [unowned(unsafe) self] _ in
                Log.info("gatt", "the phone's services changed; looking again")
                s.serviceChanged(now: Clock.now())
                pump()
            }) { result in
                if case .failure(let error) = result { Log.debug("gatt", "Service Changed not subscribed: \(error)") }
            }
        }
    }

    /// Reads the phone's Current Time Service once per connection; a phone
    /// without one leaves the head unit on its own clock.
    private func readPhoneClock(_ bearer: GATTBearer) {
        ServiceDiscovery.discover(PhoneClock.service, on: bearer) { [unowned(unsafe) self] outcome in
            guard case .found(let found) = outcome, let time = found[PhoneClock.currentTime] else {
                Log.info("clock", "the phone has no Current Time Service")
                return
            }
            bearer.read(time.value) { [unowned(unsafe) self] result in
                guard case .success(let bytes) = result, let clock = PhoneClock(currentTime: bytes, at: Clock.now()) else {
                    Log.warning("clock", "the phone's current time could not be read")
                    return
                }
                phoneClock = clock
                Log.info("clock", "time from the phone: \(clock.text(at: Clock.now()))")
                pump()
            }
        }
    }

    /// Moves ANCS/AMS actions to GATT and their events to the model and the
    /// event log. True when anything happened.
    func pumpAppleServices(now: Instant) -> Bool {
        var progressed = false
        for s in services.values {
            while let action = s.ancs.pollAction() {
                progressed = true
                if let event = s.perform(action) { ancsEvent(event, on: s, now: now) }
            }
            while let action = s.ams.pollAction() {
                progressed = true
                if let event = s.perform(action) { amsEvent(event, now: now) }
            }
        }
        while let e = notifications.pollEvent() {
            progressed = true
            emitNotification(e)
        }
        return progressed
    }

    private func ancsEvent(_ event: ANCSEvent, on s: AppleServices, now: Instant) {
        switch event {
        case .sharingDisabled:
            hint = "Share System Notifications is off on the iPhone"
            events.error("ancs", "notifications not shared with this head unit")
        case .sharingRestored:
            if hint == "Share System Notifications is off on the iPhone" { hint = nil }
        case .serviceAbsent:
            Log.info("ancs", "the phone offers no notifications yet")
        case .securityRequired:
            secureAgain(s.handle, now: now)
        case .appNameLearned:
            AppNameStore(files: stateFiles).save(s.ancs.appNames)
        default:
            break
        }
        notifications.handle(event)
        s.ancs.setNotificationsExpected(notifications.expectsUpdates, now: now)
    }

    private func amsEvent(_ event: AMSEvent, now: Instant) {
        switch event {
        case .nowPlayingChanged(let state):
            nowPlaying = state
            let report = state.report(at: now)
            events.emit("now_playing") { j in
                j.field("player", report.player)
                j.field("artist", report.artist)
                j.field("album", report.album)
                j.field("title", report.title)
                j.field("state", report.state?.description)
                j.field("elapsed_s", milliunits: report.elapsedMilliseconds)
                j.field("duration_s", milliunits: report.durationMilliseconds)
            }
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
        events.emit("notification") { j in
            j.field("action", e.action.description)
            j.field("uid", Int(e.uid.value))
            j.field("app", e.app?.description)
            j.field("category", e.category.name)
            j.field("kind", e.kind.description)
            j.field("title", e.title)
            j.field("message", e.message)
        }
    }
}
