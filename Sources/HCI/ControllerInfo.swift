import BluetoothCore

/// What bring-up learned about the controller.
public struct ControllerInfo: Equatable {
    public var address = BluetoothAddress(value: 0, kind: .public)
    public var hciVersion: UInt8 = 0
    public var manufacturer: UInt16 = 0
    public var lmpSubversion: UInt16 = 0
    /// The 64-octet Supported_Commands bit mask.
    public var supportedCommands: [UInt8] = []
    public var lmpFeatures: UInt64 = 0
    public var leFeatures: UInt64 = 0
    /// Largest ACL payload the controller takes in one packet, and how many
    /// such packets it can buffer.
    public var aclDataLength = 27
    public var aclBufferCount = 1
    /// How many devices the filter accept list and the resolving list
    /// hold, and how many advertising sets the controller has; nil where
    /// the controller lacks the command that tells (or its answer failed).
    public var filterAcceptListSize: Int?
    public var resolvingListSize: Int?
    public var advertisingSets: Int?

    public init() {}
    /// LMP feature bit 38: "LE Supported (Controller)".
    public var supportsLE: Bool { lmpFeatures & (1 << 38) != 0 }
    public var supportsDataLengthExtension: Bool { leFeatures & (1 << 5) != 0 }
    public var supportsLLPrivacy: Bool { leFeatures & (1 << 6) != 0 }

    public var versionName: String {
        switch hciVersion {
        case 6: return "4.0"
        case 7: return "4.1"
        case 8: return "4.2"
        case 9: return "5.0"
        case 10: return "5.1"
        case 11: return "5.2"
        case 12: return "5.3"
        case 13: return "5.4"
        case 14: return "6.0"
        default: return "version \(hciVersion)"
        }
    }
}

/// One LE link the controller reported as established.
public struct Link: Equatable {
    public var handle: ConnectionHandle
    public var role: LinkRole
    public var peer: BluetoothAddress
    /// The address we used on this link: the public address as central,
    /// the static random identity (when set) as peripheral. SMP confirms it.
    public var localAddress: BluetoothAddress
    /// The on-air private address of a peer the controller resolved.
    public var peerResolvablePrivateAddress: BluetoothAddress?
    public var interval: UInt16
    public var latency: UInt16
    public var supervisionTimeout: UInt16
    public var encrypted = false
    /// Largest LL payload the peer and we agreed on (27 until a Data Length Change).
    public var maxTxOctets: UInt16 = 27
    public var maxRxOctets: UInt16 = 27
}
