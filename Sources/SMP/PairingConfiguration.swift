import BluetoothCore

/// The head unit's pairing policy. The defaults are the secure ones:
/// LE Secure Connections only, full 16-octet keys, no debug keys, MITM
/// protection required whenever the IO capability can provide it.
public struct PairingConfiguration {
    /// DisplayOnly: the head unit shows a passkey that the user types on the
    /// phone. `.noInputNoOutput` gives Just Works, `.displayYesNo` Numeric
    /// Comparison (with a confirm button).
    public var ioCapability: IOCapability
    /// Ask the phone to bond (store keys for later reconnects).
    public var bonding: Bool
    /// Refuse pairing that ends in Just Works. Defaults to true unless the
    /// IO capability is NoInputNoOutput (which can only do Just Works).
    public var requireMITM: Bool
    /// Refuse LE legacy pairing. When false, a phone without Secure
    /// Connections is paired the legacy way (and the log says so).
    public var requireSecureConnections: Bool
    /// Accept the published SC debug public key from the phone (only for
    /// sniffing sessions during development).
    public var allowDebugKeys: Bool
    /// Smallest acceptable encryption key size in octets; 16 rules out the
    /// KNOB key-size downgrade.
    public var minimumKeySize: UInt8
    /// Our IRK and identity address, distributed when the phone asks. nil
    /// means the head unit does not distribute an identity.
    public var localIdentity: LocalIdentity?
    /// When the phone answers encryption with "PIN or Key Missing" (it forgot
    /// us), pair again on the same link once.
    public var pairAgainWhenPeerForgetsBond: Bool
    /// The SMP timeout (Vol 3 Part H 3.4): 30 s.
    public var timeoutMilliseconds: Int64

    public init(ioCapability: IOCapability = .displayOnly, bonding: Bool = true, requireMITM: Bool? = nil,
                requireSecureConnections: Bool = true, allowDebugKeys: Bool = false, minimumKeySize: UInt8 = 16,
                localIdentity: LocalIdentity? = nil, pairAgainWhenPeerForgetsBond: Bool = true,
                timeoutMilliseconds: Int64 = 30_000) {
        self.ioCapability = ioCapability
        self.bonding = bonding
        self.requireMITM = requireMITM ?? (ioCapability != .noInputNoOutput)
        self.requireSecureConnections = requireSecureConnections
        self.allowDebugKeys = allowDebugKeys
        self.minimumKeySize = min(max(minimumKeySize, 7), 16)
        self.localIdentity = localIdentity
        self.pairAgainWhenPeerForgetsBond = pairAgainWhenPeerForgetsBond
        self.timeoutMilliseconds = timeoutMilliseconds
    }

    /// The MITM flag we send: set whenever our IO capability can take part
    /// in an authenticated method.
    var requestsMITM: Bool { ioCapability != .noInputNoOutput || requireMITM }
}
