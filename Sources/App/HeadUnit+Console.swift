import BluetoothCore
import Config
import Console
import Drivers
import HCI
import HeadUnitCore
import Platform

/// What the diagnostics shell's commands do: the program's own I/O here,
/// everything about the phone in the core.
extension HeadUnit {
    /// `reboot` ends the firmware with this status; the supervisor on the
    /// image reboots the board (a development machine is left alone).
    static let rebootExitStatus: Int32 = 3

    /// What a new trace zeroes: nothing when the keys are asked for.
    static func traceRedaction(keepingKeys: Bool, core: HeadUnitCore) -> TraceRedaction? {
        keepingKeys ? nil : TraceRedaction(secretAttributes: core.secretAttributeHandles)
    }

    func consoleCommand(_ command: ConsoleCommand, now: Instant) {
        switch command {
        case .status:
            console?.say(statusText(now: now))
            if let image = UpdateLauncher.imageStatus() { console?.say(image) }
        case .log(let level):
            Log.level = level
        case .traceOn(let path), .traceOnKeepingKeys(let path):
            let keepKeys = command == .traceOnKeepingKeys(path)
            do {
                trace(to: try BTSnoopWriter(path: path, redaction: HeadUnit.traceRedaction(keepingKeys: keepKeys, core: core)))
                console?.say("tracing to \(path)" + (keepKeys ? " WITH the link keys and key seeds in clear" : " (keys zeroed)"))
            } catch {
                console?.say("\(error)")
            }
        case .traceOff:
            trace(to: nil)
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
            shutDownGracefully(now: now)
        case .update(let path):
            console?.say(UpdateLauncher.start(bundle: path).line)
        case .help, .empty, .invalid:
            break
        case .scan, .connect, .disconnect, .unpair, .pair, .bonds, .forget, .notifications, .nowPlaying, .action, .media, .confirm, .cancel:
            core.command(command, now: now)
        }
    }
}
