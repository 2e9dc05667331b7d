/// Where a layer takes its random octets from: nonces, passkeys, keys,
/// ids. Passed in by whoever builds the layer, so that a run can be
/// repeated byte for byte with a seeded source; the firmware passes the
/// system's (`RandomSource.system` in SMP, libcrypto's RAND_bytes).
public struct RandomSource {
    /// Returns exactly `count` random octets, or nil when none are available.
    public let generate: (Int) -> [UInt8]?

    public init(_ generate: @escaping (Int) -> [UInt8]?) { self.generate = generate }
}
