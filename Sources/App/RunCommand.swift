import BluetoothCore
import CLinux
import Config
import DisplaySettings
import Drivers
import Graphics
import HCI
import Platform

/// `headunit run`: the head unit itself. The configuration file gives every
/// setting a value; the command line overrides the transport, the display,
/// the state directory and the log level, and names the hardware watchdog.
enum RunCommand {
    static func run(_ args: Arguments) throws(Arguments.UsageError) -> Int32 {
        let (configuration, keysSet) = loadConfiguration(args.options["config"])
        if args.options["log-level"] == nil { Log.level = configuration.logLevel }

        var spec = configuration.hci
        if let specText = args.options["hci"] {
            guard let s = TransportSpec(specText) else { throw Arguments.UsageError(description: "--hci: cannot understand '\(specText)'") }
            spec = s
        }
        // The car's default is DRM, but only a configuration file that says
        // so selects it: a development machine started without one (or a
        // test) must not wait for a display it does not have.
        var display = keysSet.contains("display.output") ? configuration.display : .none
        if let text = args.options["display"] {
            do { display = try DisplaySpec.parse(text) } catch {
                throw Arguments.UsageError(description: "--display: \(error)")
            }
        }
        var options = HeadUnit.Options(spec: spec,
                                       stateDirectory: args.options["state"] ?? configuration.stateDirectory,
                                       tracePath: args.options["trace"],
                                       eventsPath: args.options["events"],
                                       consoleDevice: args.options["console"],
                                       display: display,
                                       configuration: configuration)
        options.watchdogDevice = args.options["watchdog"]
        options.traceKeys = args.flags.contains("trace-keys")
        options.watchdogTimeoutSeconds = try args.int("watchdog-timeout", default: Watchdog.defaultTimeoutSeconds)
        guard options.watchdogTimeoutSeconds > 0 else {
            throw Arguments.UsageError(description: "--watchdog-timeout wants a number of seconds above 0")
        }
        do {
            let unit = try HeadUnit(options: options)
            return unit.run()
        } catch {
            Log.error("headunit", "cannot start: \(error)")
            return 1
        }
    }

    /// Reads the configuration file. Nothing in it can stop the firmware
    /// from starting: each bad line is reported and its default used, and a
    /// missing or unreadable file means all defaults.
    static func loadConfiguration(_ explicit: String?) -> (HeadUnitConfiguration, Set<String>) {
        let path = explicit ?? HeadUnitConfiguration.defaultPath
        do {
            let bytes = try ReadFile.prefix(path, limit: HeadUnitConfiguration.maximumFileSize + 1)
            let result = HeadUnitConfiguration.parse(bytes, file: path)
            for diagnostic in result.diagnostics { Log.warning("config", diagnostic.description) }
            return (result.configuration, result.keysSet)
        } catch {
            if explicit == nil && error.code == ENOENT {
                Log.info("config", "no \(path); using the defaults")
            } else {
                Log.warning("config", "\(error); using the defaults")
            }
            return (HeadUnitConfiguration(), [])
        }
    }
}
