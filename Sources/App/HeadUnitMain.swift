import BluetoothCore
import Platform

/// Entry point shared by the host build and the firmware.
public enum HeadUnitMain {
    static let usage = """
    usage:
      headunit run  --hci SPEC [--display SPEC] [--state DIR] [--config FILE]
                    [--trace FILE.btsnoop [--trace-keys]] [--events FILE.jsonl] [--console DEV|-]
                    [--watchdog /dev/watchdogN [--watchdog-timeout SECONDS]]
      headunit scan --hci SPEC [--seconds N] [--trace FILE.btsnoop [--trace-keys]]
      headunit connect --hci SPEC [--seconds N] [--trace FILE.btsnoop [--trace-keys]]
      headunit render --out FILE.png [--tile N]   (every maneuver arrow, for comparisons)
      headunit crypto-bench [--iterations N] [--passes P]   (NotifBridge key activation and decryption times)
      headunit install BUNDLE --compatible BOARD --root DEVICE [--boot DEVICE] [--key FILE]
                    (a signed update bundle into the inactive slot; docs/UPDATES.md)
      headunit version
    SPEC: hciN | uart:/dev/ttyX[:baud] | tcp:HOST:PORT
    """

    static let valued: Set<String> = ["hci", "display", "state", "config", "trace", "events", "console", "seconds", "log-level",
                                      "watchdog", "watchdog-timeout", "out", "tile", "iterations", "passes",
                                      "compatible", "root", "boot", "key"]

    public static func main(_ argv: [String]) -> Int32 {
        Log.sink = StandardErrorLog.write
        do throws(Arguments.UsageError) {
            let args = try Arguments(Array(argv.dropFirst()), valued: valued)
            if let levelName = args.options["log-level"] {
                guard let level = LogLevel(name: levelName) else {
                    throw Arguments.UsageError(description: "--log-level: one of error, warn, info, debug, trace")
                }
                Log.level = level
            }
            switch args.verb {
            case "version":
                print("headunit \(Version.string)")
                return 0
            case "run":
                return try RunCommand.run(args)
            case "scan":
                return try ScanCommand.run(args)
            case "connect":
                return try ConnectCommand.run(args)
            case "render":
                return try RenderCommand.run(args)
            case "install":
                return try InstallCommand.run(args)
            case "crypto-bench":
                return try CryptoBenchCommand.run(args)
            case "state-stress":
                // The power-cut test's workload (StateStress.swift); not for people.
                guard args.positional.count == 1 else {
                    throw Arguments.UsageError(description: "state-stress DIR")
                }
                return StateStress.run(directory: args.positional[0])
            case "help", nil:
                print(usage)
                return args.verb == nil ? 2 : 0
            default:
                throw Arguments.UsageError(description: "unknown command '\(args.verb!)'")
            }
        } catch {
            StandardErrorLog.line("headunit: \(error)")
            StandardErrorLog.line(usage)
            return 2
        }
    }
}
