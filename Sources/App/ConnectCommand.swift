import BluetoothCore
import Drivers
import HCI
import HeadUnitCore
import Platform

/// `headunit connect`: a link check. Scans for the first NavigationNotifier
/// phone, connects, holds the link for a moment, disconnects cleanly.
enum ConnectCommand {
    static func run(_ args: Arguments) throws(Arguments.UsageError) -> Int32 {
        guard let specText = args.options["hci"] else { throw Arguments.UsageError(description: "connect needs --hci SPEC") }
        guard let spec = TransportSpec(specText) else { throw Arguments.UsageError(description: "--hci: cannot understand '\(specText)'") }
        let seconds = try args.int("seconds", default: 20)

        let session: HostSession
        do {
            session = try HostSession(spec: spec, tracePath: args.options["trace"], traceKeys: args.flags.contains("trace-keys"))
        } catch {
            Log.error("connect", "\(error)")
            return 1
        }
        let host = session.host
        var advertisers = Advertisers()
        var done = false
        var succeeded = false
        /// When to end the link that came up, and which.
        var hangUp: (at: Instant, handle: ConnectionHandle)?
        session.start()
        session.run(until: session.loop.now().adding(seconds: Int64(seconds)), wake: { hangUp?.at }, due: { now in
            if let h = hangUp, h.at <= now {
                hangUp = nil
                host.disconnect(h.handle)
            }
        }, while: { !done }) { event, now in
            switch event {
            case .ready:
                host.startScanning(active: true)
                print("looking for a NavigationNotifier server on \(spec)...")
            case .advertisingReport(let report):
                guard host.connectingTo == nil, host.links.isEmpty else { return }
                _ = advertisers.take(report)
                if let entry = advertisers.entries[report.address], entry.isNavigationNotifierPhone, entry.connectable {
                    print("connecting to \(Advertisers.describe(entry))")
                    host.connect(to: entry.address)
                }
            case .connected(let link):
                print("connected: handle \(link.handle), interval \(Double(link.interval) * 1.25) ms")
                hangUp = (now.adding(milliseconds: 500), link.handle)
            case let .connectionFailed(peer, status):
                print("connection to \(peer) failed: \(status)")
                done = true
            case let .disconnected(handle, reason):
                print("disconnected: handle \(handle), \(reason)")
                succeeded = reason == .localHostTerminated || reason == .remoteUserTerminated
                done = true
            default:
                break
            }
        }
        if !done { print("no NavigationNotifier server connected within \(seconds) s") }
        session.driver.shutdown()
        return succeeded ? 0 : 1
    }
}
