import AMS
import ANCS
import BluetoothCore
import Console
import Display
import Pairing
import Platform

/// What the diagnostics shell's commands do.
extension HeadUnit {
    /// `reboot` ends the firmware with this status; the supervisor on the
    /// image reboots the board (a development machine is left alone).
    static let rebootExitStatus: Int32 = 3

    func consoleCommand(_ command: ConsoleCommand) {
        let now = Clock.now()
        switch command {
        case .status:
            console?.say(statusText())
        case .scan, .connect:
            pairing.discover(now: now)
        case .disconnect:
            pairing.userDisconnect(now: now)
        case .unpair:
            pairing.userUnpair(now: now)
        case .bonds:
            let all = bonds.all()
            console?.say("remembered server: \(pairing.rememberedServer ?? "none")")
            if all.isEmpty { console?.say("no bonds") }
            for (server, bond) in all {
                console?.say("bond \(server): identity \(bond.peerIdentityAddress), \(bond.authenticated ? "MITM" : "no MITM"), \(bond.secureConnections ? "secure connections" : "legacy"), key size \(bond.keySize)")
            }
        case .forget(let server):
            if pairing.rememberedServer == server {
                pairing.userUnpair(now: now)
            }
            bonds.delete(for: server)
            bondsChanged()
            console?.say("forgot \(server)")
        case .notifications:
            let shown = notifications.shown
            if shown.isEmpty { console?.say("no notifications shown") }
            for n in shown {
                // The console is a diagnostics port in the car: text is shown
                // here on request, as on the screen.
                console?.say("\(n.uid) \(n.kind) \(n.notification.app?.description ?? "?"): \(n.title ?? "") / \(n.message ?? "")")
            }
            console?.say("dropped: \(notifications.droppedTotal)")
        case .nowPlaying:
            if let playing = nowPlaying {
                let r = playing.report(at: now)
                console?.say("\(r.title ?? "?") / \(r.artist ?? "?") / \(r.album ?? "?"), \(r.state?.description ?? "?"), \((r.elapsedMilliseconds ?? 0) / 1000) of \((r.durationMilliseconds ?? 0) / 1000) s on \(r.player ?? "?")")
            } else {
                console?.say("nothing playing")
            }
        case let .action(uid, action):
            let sent = services.values.contains { $0.ancs.performAction(action, on: uid, now: now) }
            console?.say(sent ? "\(action) action sent for \(uid)" : "no notification \(uid) offers that")
        case .media(let remote):
            let sent = services.values.contains { $0.ams.send(remote, now: now) }
            console?.say(sent ? "\(remote) sent" : "the phone does not offer \(remote) now")
        case .log(let level):
            Log.level = level
        case .traceOn(let path):
            do {
                driver.trace = try BTSnoopWriter(path: path)
                console?.say("tracing to \(path)")
            } catch {
                console?.say("\(error)")
            }
        case .traceOff:
            driver.trace = nil
            console?.say("tracing off")
        case .screenshot(let path):
            console?.say(screen.screenshot(path) ?? "screenshot written to \(path)")
        case .config:
            console?.say(configuration.render())
        case .version:
            console?.say("headunit \(Version.string)")
        case .reboot:
            console?.say("rebooting")
            exitStatus = HeadUnit.rebootExitStatus
            loop.onTerminationSignal?()
        case .help, .empty, .invalid:
            break
        }
        pump()
    }
}
