import BluetoothCore

extension SecurityManager {
    /// The size of the key the link is being encrypted with, as SMP knows
    /// it: negotiated in the pairing that just ran (the LTK is shortened to
    /// it), or the stored bond's when the bond's key is used. For a
    /// controller that cannot report it (no Read Encryption Key Size):
    /// on LE the key size is SMP's alone, which is also where the Linux
    /// kernel takes it for LE links. nil when SMP knows no key.
    public var keySizeOfEncryption: UInt8? {
        switch phase {
        case .awaitingEncryption: return pairing?.keySize
        case .encryptingWithBond: return bond?.keySize
        default: return linkSecurity?.keySize ?? bond?.keySize
        }
    }
}
