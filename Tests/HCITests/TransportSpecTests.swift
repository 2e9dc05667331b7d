import Testing
@testable import HCI

@Suite struct TransportSpecTests {
    @Test func parsesEveryForm() {
        #expect(TransportSpec("hci0") == .userChannel(device: 0))
        #expect(TransportSpec("hci12") == .userChannel(device: 12))
        #expect(TransportSpec("uart:/dev/ttyS0") == .uart(path: "/dev/ttyS0", baud: 115_200))
        #expect(TransportSpec("uart:/dev/ttyAMA0:3000000") == .uart(path: "/dev/ttyAMA0", baud: 3_000_000))
        #expect(TransportSpec("tcp:127.0.0.1:1234") == .tcp(host: "127.0.0.1", port: 1234))
        #expect(TransportSpec("tcp:localhost:9") == .tcp(host: "localhost", port: 9))
    }

    @Test func rejectsNonsense() {
        for bad in ["", "hci", "hcix", "uart:", "uart:ttyS0", "uart:/dev/ttyS0:123", "uart:/dev/ttyS0:1:2",
                    "tcp:", "tcp:host", "tcp::1234", "tcp:host:0", "tcp:host:99999", "usb:1"] {
            #expect(TransportSpec(bad) == nil, "\(bad)")
        }
    }
}
