import CCrypto

/// Where the Security Manager takes its nonces, passkeys and keys from.
/// The firmware uses `.system` (OpenSSL's RAND_bytes); tests inject fixed
/// values to replay the specification's sample data.
public struct RandomSource {
    /// Returns exactly `count` random octets, or nil when none are available.
    public let generate: (Int) -> [UInt8]?

    public init(_ generate: @escaping (Int) -> [UInt8]?) { self.generate = generate }

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
