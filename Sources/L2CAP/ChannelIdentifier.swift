import BluetoothCore

/// An L2CAP channel identifier on an LE-U logical link (Core Vol 3 Part A 2.1).
public struct ChannelIdentifier: Hashable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    public static let null = ChannelIdentifier(0x0000)
    /// The BR/EDR signaling channel; not used on LE-U.
    public static let bredrSignaling = ChannelIdentifier(0x0001)
    public static let att = ChannelIdentifier(0x0004)
    public static let leSignaling = ChannelIdentifier(0x0005)
    public static let smp = ChannelIdentifier(0x0006)

    /// Channels a peer may allocate with credit based connection requests.
    public var isDynamicLE: Bool { (0x0040...0x007F).contains(rawValue) }

    public var description: String {
        switch self {
        case .att: return "ATT"
        case .leSignaling: return "LE signaling"
        case .smp: return "SMP"
        default: return "CID 0x" + hex(rawValue, digits: 4)
        }
    }
}
