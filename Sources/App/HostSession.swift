import BluetoothCore
import Drivers
import HCI
import Platform

/// An event loop plus an HCI driver on one transport, with an optional
/// btsnoop trace: what every command that talks to a controller starts with.
final class HostSession {
    let loop: EventLoop
    let driver: HCIDriver

    init(spec: TransportSpec, tracePath: String?, traceKeys: Bool) throws(SystemError) {
        loop = try EventLoop()
        driver = HCIDriver(spec: spec, loop: loop)
        if let path = tracePath { driver.trace = try BTSnoopWriter(path: path, redaction: traceKeys ? nil : TraceRedaction()) }
    }

    /// Lets queued commands go out and their answers come back (up to 1 s).
    func settle() {
        let host = driver.host
        loop.run(until: Clock.now().adding(milliseconds: 1000)) { host.hasCommandsOutstanding }
    }
}
