import BluetoothCore

/// A 128-bit Long Term Key in SMP order (least significant octet first, as
/// HCI LE Enable Encryption takes it).
public struct LongTermKey: Hashable {
    public let bytes: [UInt8]

    public init?<C: Collection>(bytes: C) where C.Element == UInt8 {
        guard bytes.count == 16 else { return nil }
        self.bytes = Array(bytes)
    }

    /// An all-zero key gives no protection: a peer that hands one out is refused.
    public var isAllZero: Bool { bytes.allSatisfy { $0 == 0 } }

    /// The key cut to `size` octets as legacy pairing requires (the
    /// remaining most significant octets are zero).
    func shortened(to size: UInt8) -> LongTermKey {
        var out = bytes
        for i in Int(min(size, 16))..<16 { out[i] = 0 }
        return LongTermKey(bytes: out)!
    }
}

/// A 128-bit Identity Resolving Key in SMP order.
public struct IdentityResolvingKey: Hashable {
    public let bytes: [UInt8]

    public init?<C: Collection>(bytes: C) where C.Element == UInt8 {
        guard bytes.count == 16 else { return nil }
        self.bytes = Array(bytes)
    }

    /// A new random IRK for the head unit; the owner persists it and passes it
    /// back in `PairingConfiguration.localIdentity` on every start.
    public static func generate(random: RandomSource = .system) throws(CryptoError) -> IdentityResolvingKey {
        let bytes = try random.bytes(16)
        return IdentityResolvingKey(bytes: bytes)!
    }

    /// An all-zero IRK means "no IRK": anyone could compute its hashes, so it
    /// never resolves anything.
    public var isAllZero: Bool { bytes.allSatisfy { $0 == 0 } }
}

/// The head unit's own identity, distributed to the phone during bonding
/// when the phone asks for it.
public struct LocalIdentity: Equatable {
    public var irk: IdentityResolvingKey
    /// Public or static random address that the phone stores as our identity.
    public var address: BluetoothAddress

    public init(irk: IdentityResolvingKey, address: BluetoothAddress) {
        self.irk = irk
        self.address = address
    }
}

/// Address encodings the toolbox needs.
enum SMPAddress {
    /// The 7 octets f5 and f6 take for A1/A2 in SMP order: the six address
    /// octets, then the type octet (0 public, 1 random) as the most significant.
    static func f5Form(_ address: BluetoothAddress) -> [UInt8] {
        address.littleEndianBytes + [typeBit(address)]
    }

    /// 0 for public (also a resolved public identity), 1 for random.
    static func typeBit(_ address: BluetoothAddress) -> UInt8 { address.isRandom ? 1 : 0 }
}
