import AMS
import ANCS
import BluetoothCore
import Console
import HCI
import Notifications
import NavigationNotifier
import SMP
import ScreenValues

/// What the diagnostics shell's commands and the on-screen actions do to
/// the phone links. Commands about the program's own I/O (trace,
/// screenshot, config, version, reboot) stay with the shell.
extension HeadUnitCore {
    /// What only the shell knows, for `status`.
    public struct ShellStatus {
        public var transport: String
        public var stateFiles: String
        /// The renderer's glyph cache ("glyphs N B/B bytes"), when drawing.
        public var glyphs: String?
        public var watchdog: String
        /// The system's time of day, shown until the phone tells the time.
        public var systemClock: String

        public init(transport: String, stateFiles: String, glyphs: String?, watchdog: String, systemClock: String) {
            self.transport = transport
            self.stateFiles = stateFiles
            self.glyphs = glyphs
            self.watchdog = watchdog
            self.systemClock = systemClock
        }
    }

    public func command(_ command: ConsoleCommand, now: Instant) {
        clock.now = now
        switch command {
        case .scan, .connect:
            pairing.discover(now: now)
        case .disconnect:
            pairing.userDisconnect(now: now)
        case .unpair:
            pairing.userUnpair(now: now)
        case .pair:
            openPairingWindow(now: now, why: "console")
        case .bonds:
            let all = allBonds
            say("remembered server: \(pairing.rememberedServer ?? "none")")
            if all.isEmpty { say("no bonds") }
            for (server, bond) in all {
                say("bond \(server): identity \(bond.peerIdentityAddress), \(bond.authenticated ? "MITM" : "no MITM"), \(bond.secureConnections ? "secure connections" : "legacy"), key size \(bond.keySize)")
            }
        case .forget(let server):
            if pairing.rememberedServer == server {
                pairing.userUnpair(now: now)
            }
            deleteBond(server)
            say("forgot \(server)")
        case .notifications:
            let shown = notifications.shown
            if shown.isEmpty { say("no notifications shown") }
            for n in shown {
                // The console is a diagnostics port in the car: text is shown
                // here on request, as on the screen.
                say("\(n.uid) \(n.kind) \(n.notification.app?.description ?? "?"): \(n.title ?? "") / \(n.message ?? "")")
            }
            say("dropped: \(notifications.droppedTotal)")
        case .nowPlaying:
            if let playing = nowPlaying {
                let r = playing.report(at: now)
                say("\(r.title ?? "?") / \(r.artist ?? "?") / \(r.album ?? "?"), \(r.state?.description ?? "?"), \((r.elapsedMilliseconds ?? 0) / 1000) of \((r.durationMilliseconds ?? 0) / 1000) s on \(r.player ?? "?")")
            } else {
                say("nothing playing")
            }
        case let .action(uid, action):
            let sent = links.values.contains { $0.appleServices?.ancs.performAction(action, on: uid, now: now) ?? false }
            say(sent ? "\(action) action sent for \(uid)" : "no notification \(uid) offers that")
        case .media(let remote):
            let sent = links.values.contains { $0.appleServices?.ams.send(remote, now: now) ?? false }
            say(sent ? "\(remote) sent" : "the phone does not offer \(remote) now")
        case .confirm:
            say(answerTransferCode(matches: true, now: now) ? "codes match: sent" : "no GhostDrop code waits for an answer")
        case .cancel:
            let code = transferCodeShown != nil
            let done = cancelTransfer(now: now)
            say(done ? (code ? "codes do not match: sent" : "transfer cancelled") : "no GhostDrop transfer to cancel")
        case .status, .log, .traceOn, .traceOnKeepingKeys, .traceOff, .screenshot, .config, .version, .reboot, .update, .help, .empty, .invalid:
            break
        }
        pump()
    }

    /// A touch on one of the screen's actions. "Codes match" and "Cancel"
    /// answer the code waiting as the confirm key and Escape do; a tap that
    /// comes after the code went (answered on the console meanwhile) does
    /// nothing: unlike Escape it never stops the transfer that followed.
    public func perform(_ action: ScreenAction, now: Instant) {
        clock.now = now
        switch action {
        case .discover, .connect: pairing.discover(now: now)
        case .disconnect: pairing.userDisconnect(now: now)
        case .unpair: pairing.userUnpair(now: now)
        case .pairPhone: openPairingWindow(now: now, why: "the screen")
        case .codesMatch, .cancelCode:
            if !ghostDrop.answerCode(matches: action == .codesMatch, now: now) {
                Log.info("ghostdrop", "\"\(action.label(for: pairing.state))\" tapped: no code waits for an answer")
            }
        }
        pump()
    }

    public func statusText(now: Instant, shell: ShellStatus) -> String {
        var lines: [String] = []
        lines.append("state: \(pairing.state.text)")
        if let accessory {
            lines.append("accessory: " + (accessory.reported?.state.rawValue ?? "starting") + " as " + accessory.name)
        }
        lines.append(attempts.summary(now: now).text)
        lines.append("client name: \(pairing.clientName)")
        lines.append("remembered server: \(pairing.rememberedServer ?? "none")")
        lines.append("controller: \(host.isReady ? "ready \(host.controller.address)" : "not ready") on \(shell.transport)")
        for link in host.links.values.sorted(by: { $0.handle < $1.handle }) {
            let mtu = links[link.handle]?.mtu ?? 23
            lines.append("link \(link.handle): \(link.peer), interval \(link.interval), \(link.encrypted ? "encrypted" : "not encrypted"), ATT_MTU \(mtu)")
        }
        if let clock = phoneClock {
            lines.append("clock: \(clock.text(at: now)) (from the phone)")
        } else {
            lines.append("clock: \(shell.systemClock) (system; the phone has not told the time)")
        }
        lines.append("state files: \(shell.stateFiles)")
        lines.append("caches: \(cachesText(glyphs: shell.glyphs))")
        lines.append("uptime: \(now.millisecondsSince(startedAt) / 1000) s")
        lines.append("watchdog: \(shell.watchdog)")
        return lines.joined(separator: "\n")
    }

    /// How full each bounded table is (the soak test checks them against their bounds).
    private func cachesText(glyphs: String?) -> String {
        var parts: [String] = []
        for handle in links.keys.sorted() {
            guard let ancs = links[handle]?.appleServices?.ancs else { continue }
            parts.append("ancs tracked \(ancs.trackedCount)/\(ancs.configuration.maximumNotifications)")
            parts.append("ancs queued \(ancs.queuedRequests)")
            parts.append("app names \(ancs.appNames.count)/\(ancs.appNames.capacity)")
        }
        parts.append("shown \(notifications.shown.count)")
        if let glyphs { parts.append(glyphs) }
        parts.append("advertisers \(advertisersSeen)")
        return parts.joined(separator: ", ")
    }
}
