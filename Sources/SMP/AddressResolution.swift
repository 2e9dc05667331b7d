import BluetoothCore

/// Resolvable private addresses (Vol 6 Part B 1.3.2.2 and Vol 3 Part H
/// 2.2.2): the lower 24 bits are ah(IRK, prand), the upper 24 bits prand.
extension SMPCrypto {
    /// ah(k, r): the random address hash, 3 octets in SMP order, from an IRK
    /// and the 3-octet prand (SMP order).
    public static func ah(k: [UInt8], r: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard k.count == 16, r.count == 3 else { throw .badInputLength }
        let padded = r + [UInt8](repeating: 0, count: 13)
        return Array(try e(key: k, plaintext: padded)[0..<3])
    }
}

extension IdentityResolvingKey {
    /// True when `address` is a resolvable private address made with this key.
    public func resolves(_ address: BluetoothAddress) -> Bool {
        guard address.isResolvablePrivate, !isAllZero else { return false }
        let octets = address.littleEndianBytes
        guard let hash = try? SMPCrypto.ah(k: bytes, r: Array(octets[3..<6])) else { return false }
        return constantTimeEqual(hash, Array(octets[0..<3]))
    }

    /// A new resolvable private address for `prand` (SMP order; its two top
    /// bits are forced to 0b01 as the address type requires).
    public func resolvablePrivateAddress(prand: [UInt8]) throws(CryptoError) -> BluetoothAddress {
        guard prand.count == 3 else { throw .badInputLength }
        var r = prand
        r[2] = (r[2] & 0x3F) | 0x40
        let hash = try SMPCrypto.ah(k: bytes, r: r)
        return BluetoothAddress(littleEndian: (hash + r)[...], kind: .random)!
    }
}

extension BondRecord {
    /// True when a device seen at `address` is this bond's peer: its identity
    /// address, or a resolvable private address made with its IRK.
    public func matches(_ address: BluetoothAddress) -> Bool {
        if isIdentity(address) { return true }
        guard let irk = peerIRK else { return false }
        return irk.resolves(address)
    }

    /// True when `address` is this bond's peer identity address (no AES).
    public func isIdentity(_ address: BluetoothAddress) -> Bool {
        address.value == peerIdentityAddress.value && address.isRandom == peerIdentityAddress.isRandom
    }

    /// The bond whose peer is at `address` (identity or resolvable private
    /// address), if any.
    public static func find(_ address: BluetoothAddress, in bonds: [BondRecord]) -> BondRecord? {
        for bond in bonds where bond.matches(address) { return bond }
        return nil
    }
}
