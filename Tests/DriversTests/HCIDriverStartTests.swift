import BluetoothCore
import CLinux
import Testing
@testable import Drivers
import Platform

/// The head unit starts its transport before it opens the display (so the
/// kernel sets up a UART's controller while the first frame is drawn) and
/// again when its loop starts: the second start must keep the transport
/// the first one opened.
@Suite struct HCIDriverStartTests {
    @Test func startingAgainKeepsTheOpenTransport() throws {
        let listener = try Listener()
        let driver = HCIDriver(spec: .tcp(host: "127.0.0.1", port: listener.port))
        let now = Instant(milliseconds: 1_000)
        driver.start(now: now)
        #expect(driver.isOpen)
        driver.start(now: now.adding(milliseconds: 500))
        var opened = 0
        while let event = driver.pollEvent() {
            if case .opened = event { opened += 1 }
        }
        #expect(opened == 1)
        #expect(listener.acceptAll() == 1)
        driver.shutdown()
        #expect(!driver.isOpen)
    }

    @Test func startingAgainTriesAFailedTransportAtOnce() throws {
        let listener = try Listener()
        let port = listener.port
        // Nothing listens on the port any more: the first start fails and
        // sets its retry; the loop's start tries again without waiting for it.
        listener.stop()
        let driver = HCIDriver(spec: .tcp(host: "127.0.0.1", port: port))
        let now = Instant(milliseconds: 1_000)
        driver.start(now: now)
        #expect(!driver.isOpen)
        #expect(driver.nextDeadline == now.adding(milliseconds: HCIReopenSchedule.firstDelayMilliseconds))
        driver.start(now: now.adding(milliseconds: 10))
        #expect(!driver.isOpen)
        #expect(driver.nextDeadline == now.adding(milliseconds: 10 + HCIReopenSchedule.firstDelayMilliseconds * 2))
        var events = 0
        while driver.pollEvent() != nil { events += 1 }
        #expect(events == 0)
    }
}

/// A TCP listener on loopback standing in for a simulated controller.
private final class Listener {
    private(set) var fd: Int32
    let port: UInt16

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p in
                bind(fd, p, length) == 0 && listen(fd, 4) == 0 && getsockname(fd, p, &length) == 0
            }
        }
        if !bound { close(fd) }
        try #require(bound)
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    /// The connections made so far.
    func acceptAll() -> Int {
        var count = 0
        while true {
            let c = accept(fd, nil, nil)
            guard c >= 0 else { return count }
            close(c)
            count += 1
        }
    }

    /// Stops listening: connecting is refused from now on.
    func stop() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    deinit { stop() }
}
