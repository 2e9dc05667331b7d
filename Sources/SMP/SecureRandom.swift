import BluetoothCore
import CCrypto

extension RandomSource {
    /// The system's randomness, OpenSSL's RAND_bytes: what the firmware
    /// passes everywhere. Tests inject fixed or seeded sources instead.
    public static let system = RandomSource { count in
        var out = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return out }
        guard RAND_bytes(&out, Int32(count)) == 1 else {
            ERR_clear_error()
            return nil
        }
        return out
    }

    func bytes(_ count: Int) throws(CryptoError) -> [UInt8] {
        guard let out = generate(count), out.count == count else { throw .randomUnavailable }
        return out
    }
}
