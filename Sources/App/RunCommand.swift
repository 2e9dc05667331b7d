import BluetoothCore
import Platform

/// `headunit run`: the head unit itself.
enum RunCommand {
    static let defaultStateDirectory = "/var/lib/headunit"

    static func run(_ args: Arguments) throws(Arguments.UsageError) -> Int32 {
        guard let specText = args.options["hci"] else { throw Arguments.UsageError(description: "run needs --hci SPEC") }
        guard let spec = TransportSpec(specText) else { throw Arguments.UsageError(description: "--hci: cannot understand '\(specText)'") }
        let options = HeadUnit.Options(spec: spec,
                                       stateDirectory: args.options["state"] ?? defaultStateDirectory,
                                       tracePath: args.options["trace"],
                                       eventsPath: args.options["events"],
                                       consoleDevice: args.options["console"])
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
