import BluetoothCore
import Drivers
import HCI
import HeadUnitCore
import Platform

/// `headunit scan`: brings the controller up, scans actively for a while and
/// lists every advertiser, marking NavigationNotifier phones.
enum ScanCommand {
    static func run(_ args: Arguments) throws(Arguments.UsageError) -> Int32 {
        guard let specText = args.options["hci"] else { throw Arguments.UsageError(description: "scan needs --hci SPEC") }
        guard let spec = TransportSpec(specText) else { throw Arguments.UsageError(description: "--hci: cannot understand '\(specText)'") }
        let seconds = try args.int("seconds", default: 10)

        let session: HostSession
        do {
            session = try HostSession(spec: spec, tracePath: args.options["trace"], traceKeys: args.flags.contains("trace-keys"))
        } catch {
            Log.error("scan", "\(error)")
            return 1
        }
        var advertisers = Advertisers()
        var scanning = false
        let host = session.host
        var deadline = session.loop.now().adding(seconds: Int64(seconds) + 10)
        session.start()
        session.run(until: session.loop.now().adding(seconds: Int64(seconds) + 30), wake: { deadline },
                    while: { session.loop.now() < deadline }) { event, now in
            switch event {
            case .ready:
                deadline = now.adding(seconds: Int64(seconds))
                host.startScanning(active: true)
                scanning = true
                print("scanning for \(seconds) s on \(spec)...")
            case .advertisingReport(let report):
                if let entry = advertisers.take(report) { print(Advertisers.describe(entry)) }
            case .controllerReset(let reason):
                Log.warning("scan", "controller reset (\(reason))")
            default:
                break
            }
        }
        if scanning {
            host.stopScanning()
            session.settle()
        }
        // Live lines come as advertisers and their names appear; the
        // summary lists each advertiser once, NavigationNotifier servers first.
        let all = advertisers.all
        let phones = all.filter { $0.isNavigationNotifierPhone }
        print("summary: \(all.count) advertiser\(all.count == 1 ? "" : "s"), \(phones.count) NavigationNotifier server\(phones.count == 1 ? "" : "s")")
        for entry in phones + all.filter({ !$0.isNavigationNotifierPhone }) {
            print("  " + Advertisers.describe(entry))
        }
        session.driver.shutdown()
        return scanning ? 0 : 1
    }
}
