import BluetoothCore

/// A Simplified Protocol/Service Multiplexer: what an LE credit based
/// connection names the service it wants (Core Vol 3 Part A 4.22). On LE,
/// 0x0001-0x007F are assigned by the Bluetooth SIG and 0x0080-0x00FF are
/// dynamic: a service publishes one of those and tells its peers which
/// (GhostDrop puts it in its capabilities characteristic, as iOS's
/// `publishL2CAPChannel` does).
public struct SPSM: Hashable, Comparable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(_ rawValue: UInt16) { self.rawValue = rawValue }

    public static let dynamicRange: ClosedRange<UInt16> = 0x0080...0x00FF

    public var isDynamic: Bool { SPSM.dynamicRange.contains(rawValue) }

    public static func < (a: SPSM, b: SPSM) -> Bool { a.rawValue < b.rawValue }

    public var description: String { "SPSM 0x" + hex(rawValue, digits: 4) }
}

/// What a published service demands of the link before a channel opens.
public enum ChannelSecurity: Hashable {
    case none
    /// An encrypted link whose key the security manager accepted
    /// (`publishL2CAPChannel(withEncryption: true)` on iOS).
    case encrypted
}

/// A service that accepts LE credit based connections on its SPSM, and
/// what each of its channels receives with: our MTU (the largest SDU we
/// take), our MPS (the largest K-frame payload, SDU length included) and
/// the credits we give at the start and top up to.
public struct ChannelService: Hashable {
    public var security: ChannelSecurity
    public var mtu: UInt16
    public var mps: UInt16
    public var credits: UInt16

    /// `mps` 247 fills one LE data PDU of 251 bytes (Data Length
    /// Extension) with one K-frame; `credits` cover two SDUs of `mtu`.
    public init(security: ChannelSecurity, mtu: UInt16 = 2048, mps: UInt16 = 247, credits: UInt16? = nil) {
        self.security = security
        self.mtu = max(mtu, CreditBasedLimits.minimumMTU)
        self.mps = min(max(mps, CreditBasedLimits.minimumMPS), CreditBasedLimits.maximumMPS)
        let perSDU = (Int(self.mtu) + 2 + Int(self.mps) - 1) / Int(self.mps)
        self.credits = credits ?? UInt16(min(2 * perSDU, Int(UInt16.max)))
    }
}

/// The ranges of LE credit based connections (Core Vol 3 Part A 4.22).
public enum CreditBasedLimits {
    public static let minimumMTU: UInt16 = 23
    public static let minimumMPS: UInt16 = 23
    public static let maximumMPS: UInt16 = 65533
    public static let maximumCredits = Int(UInt16.max)
    /// The SDU length field at the start of an SDU's first K-frame.
    public static let sduLengthSize = 2
}
