/// Where the controller is, as given by `--hci` (see the README):
/// `hci0`, `uart:/dev/ttyS0[:115200]`, `tcp:127.0.0.1:1234`.
public enum TransportSpec: Equatable, CustomStringConvertible {
    /// A BlueZ kernel device, used through HCI_CHANNEL_USER.
    case userChannel(device: UInt16)
    /// A UART with a controller speaking H4; the kernel's hci_uart line
    /// discipline is attached, then the new device is used as above.
    case uart(path: String, baud: Int)
    /// H4 over TCP, for simulated controllers.
    case tcp(host: String, port: UInt16)

    public static let defaultUARTBaud = 115_200

    public init?(_ text: String) {
        if text.hasPrefix("hci") {
            guard let n = UInt16(text.dropFirst(3)) else { return nil }
            self = .userChannel(device: n)
        } else if text.hasPrefix("uart:") {
            let rest = text.dropFirst(5)
            let parts = rest.split(separator: ":", omittingEmptySubsequences: false)
            guard let path = parts.first, path.hasPrefix("/"), parts.count <= 2 else { return nil }
            var baud = TransportSpec.defaultUARTBaud
            if parts.count == 2 {
                guard let b = Int(parts[1]), TransportSpec.supportedBauds.contains(b) else { return nil }
                baud = b
            }
            self = .uart(path: String(path), baud: baud)
        } else if text.hasPrefix("tcp:") {
            let rest = text.dropFirst(4)
            guard let colon = rest.lastIndex(of: ":"), let port = UInt16(rest[rest.index(after: colon)...]), port > 0 else { return nil }
            let host = String(rest[..<colon])
            guard !host.isEmpty else { return nil }
            self = .tcp(host: host, port: port)
        } else {
            return nil
        }
    }

    public static let supportedBauds = [9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 921_600,
                                        1_000_000, 1_500_000, 2_000_000, 3_000_000, 4_000_000]

    public var description: String {
        switch self {
        case .userChannel(let d): return "hci\(d)"
        case let .uart(path, baud): return "uart:\(path):\(baud)"
        case let .tcp(host, port): return "tcp:\(host):\(port)"
        }
    }
}
