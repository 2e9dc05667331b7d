import BluetoothCore
import Display
import Platform

/// `headunit run`: the head unit itself.
enum RunCommand {
    static let defaultStateDirectory = "/var/lib/headunit"

    static func run(_ args: Arguments) throws(Arguments.UsageError) -> Int32 {
        guard let specText = args.options["hci"] else { throw Arguments.UsageError(description: "run needs --hci SPEC") }
        guard let spec = TransportSpec(specText) else { throw Arguments.UsageError(description: "--hci: cannot understand '\(specText)'") }
        var display = DisplaySpec.none
        if let text = args.options["display"] {
            do { display = try DisplaySpec.parse(text) } catch {
                throw Arguments.UsageError(description: "--display: \(error)")
            }
        }
        var options = HeadUnit.Options(spec: spec,
                                       stateDirectory: args.options["state"] ?? defaultStateDirectory,
                                       tracePath: args.options["trace"],
                                       eventsPath: args.options["events"],
                                       consoleDevice: args.options["console"])
        options.display = display
        do {
            let unit = try HeadUnit(options: options)
            unit.run()
            return 0
        } catch {
            Log.error("headunit", "cannot start: \(error)")
            return 1
        }
    }
}
