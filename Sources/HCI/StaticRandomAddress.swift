import BluetoothCore

/// The head unit's own LE identity as a peripheral: a static random address
/// (Core Vol 6 Part B 1.3.2.1). Its two top bits are 1, and the 46 bits
/// below are neither all 0 nor all 1. It may change only at power cycle;
/// the owner keeps it in its state so it stays the same across boots and
/// a bonded iPhone recognises the head unit.
public struct StaticRandomAddress: Hashable, CustomStringConvertible {
    public let address: BluetoothAddress

    /// The 46 bits below the two type bits.
    private static let randomPart: UInt64 = 0x3FFF_FFFF_FFFF

    /// Accepts only a random address that is a valid static one.
    public init?(_ address: BluetoothAddress) {
        guard address.kind == .random, address.value >> 46 == 0b11 else { return nil }
        let random = address.value & StaticRandomAddress.randomPart
        guard random != 0, random != StaticRandomAddress.randomPart else { return nil }
        self.address = address
    }

    /// From six random bytes (in any order: they are only bits): the two
    /// top bits are forced to 1. Nil for the two forbidden patterns, which
    /// a good random source gives once in 2^45 draws: draw again.
    public init?(randomBytes bytes: [UInt8]) {
        guard bytes.count == 6,
              let raw = BluetoothAddress(littleEndian: bytes[...], kind: .random) else { return nil }
        self.init(BluetoothAddress(value: raw.value | 0b11 << 46, kind: .random))
    }

    /// From "C0:11:22:33:44:55" as stored in the state directory.
    public init?(text: String) {
        guard let address = BluetoothAddress(text, kind: .random) else { return nil }
        self.init(address)
    }

    public var description: String { address.description }
}
