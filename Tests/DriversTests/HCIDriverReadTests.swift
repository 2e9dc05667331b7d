import BluetoothCore
import CLinux
import HCI
import Platform
import Testing
@testable import Drivers

/// The driver's read path over a loopback TCP "controller": what each
/// wake-up read is handed out once, as read, and bytes read before the
/// transport ended come before its end.
@Suite(.serialized) struct HCIDriverReadTests {
    /// A listening socket on 127.0.0.1 and its port.
    private func listener() throws -> (fd: Int32, port: UInt16) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 1) == 0
                && getsockname(fd, $0, &length) == 0 }
        }
        try #require(bound)
        return (fd, UInt16(bigEndian: address.sin_port))
    }

    private func send(_ bytes: [UInt8], to fd: Int32) {
        _ = bytes.withUnsafeBufferPointer { write(fd, $0.baseAddress, $0.count) }
    }

    /// One wait on the driver and its dispatch.
    private func wake(_ devices: inout LoopDevices, _ loop: EventLoop) {
        var set = PollSet()
        let due = devices.fill(&set)
        _ = loop.wait(&set, until: earliest(due, Clock.now().adding(seconds: 2)))
        devices.dispatch(&set, now: Clock.now())
    }

    private func received(_ driver: HCIDriver) -> [[UInt8]] {
        var reads: [[UInt8]] = []
        while let event = driver.pollEvent() {
            if case .received(let bytes) = event { reads.append(bytes) } else { Issue.record("unexpected \(event)") }
        }
        return reads
    }

    @Test func eachWakeUpsBytesAreHandedOutOnceThenTheEndAfterThem() throws {
        let (server, port) = try listener()
        defer { close(server) }
        let loop = try EventLoop()
        let driver = HCIDriver(spec: .tcp(host: "127.0.0.1", port: port))
        driver.start(now: Clock.now())
        let controller = accept(server, nil, nil)
        try #require(controller >= 0)
        var devices = LoopDevices([driver])
        guard case .opened? = driver.pollEvent() else { Issue.record("not opened"); return }

        // Command Complete for HCI Reset, then a Number Of Completed Packets.
        let reset: [UInt8] = [0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00]
        let completed: [UInt8] = [0x04, 0x13, 0x05, 0x01, 0x40, 0x00, 0x01, 0x00]
        send(reset, to: controller)
        wake(&devices, loop)
        #expect(received(driver) == [reset])
        // The next wake-up's bytes alone, in the storage the first used.
        send(completed, to: controller)
        wake(&devices, loop)
        #expect(received(driver) == [completed])

        // Read, not yet handed out, when the controller goes: the bytes
        // first, then the end.
        send(reset, to: controller)
        wake(&devices, loop)
        close(controller)
        wake(&devices, loop)
        var order: [String] = []
        while let event = driver.pollEvent() {
            switch event {
            case .received(let bytes): order.append(bytes == reset ? "reset" : "other \(bytes)")
            case .closed: order.append("closed")
            case .opened: order.append("opened")
            }
        }
        #expect(order == ["reset", "closed"])
        #expect(!driver.isOpen)
        driver.shutdown()
    }
}
