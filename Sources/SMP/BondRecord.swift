import BluetoothCore

/// What the head unit keeps about a bonded phone to encrypt again after a
/// reconnect and to recognise the phone behind its rotating addresses.
/// The phone's SERVER NAME is stored beside it by another layer.
public struct BondRecord: Equatable {
    /// The phone's identity address (public or static random), or the
    /// connection address when the phone distributed none.
    public var peerIdentityAddress: BluetoothAddress
    /// The phone's IRK, when it distributed one that is not all zeros.
    public var peerIRK: IdentityResolvingKey?
    /// The key to encrypt with on reconnect.
    public var longTermKey: LongTermKey
    /// Legacy pairing only: EDIV and Rand identify the LTK to the phone.
    /// Both are zero for LE Secure Connections.
    public var ediv: UInt16
    public var rand: UInt64
    /// Encryption key size in octets (7...16) agreed during pairing.
    public var keySize: UInt8
    /// The pairing method protected against man-in-the-middle attacks.
    public var authenticated: Bool
    public var secureConnections: Bool
    /// The head unit's IRK when it was distributed to the phone.
    public var localIRK: IdentityResolvingKey?
    /// The side the head unit paired as. A Secure Connections LTK serves
    /// either side; a legacy one only the side that received it.
    public var localRole: SecurityRole

    public init(peerIdentityAddress: BluetoothAddress, peerIRK: IdentityResolvingKey?, longTermKey: LongTermKey,
                ediv: UInt16 = 0, rand: UInt64 = 0, keySize: UInt8, authenticated: Bool,
                secureConnections: Bool, localIRK: IdentityResolvingKey?, localRole: SecurityRole = .initiator) {
        self.peerIdentityAddress = peerIdentityAddress
        self.peerIRK = peerIRK
        self.longTermKey = longTermKey
        self.ediv = ediv
        self.rand = rand
        self.keySize = keySize
        self.authenticated = authenticated
        self.secureConnections = secureConnections
        self.localIRK = localIRK
        self.localRole = localRole
    }
}
