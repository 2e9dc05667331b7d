import BluetoothCore

extension RandomSource {
    /// A reproducible source for tests: SplitMix64 from `seed`. Two sources
    /// made with one seed hand out the same bytes in the same order, so a
    /// run of the core can be repeated byte for byte.
    public static func seeded(_ seed: UInt64) -> RandomSource {
        final class State {
            var x: UInt64
            init(_ x: UInt64) { self.x = x }
        }
        let state = State(seed)
        return RandomSource { count in
            var out: [UInt8] = []
            out.reserveCapacity(count)
            while out.count < count {
                state.x &+= 0x9E37_79B9_7F4A_7C15
                var z = state.x
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                z ^= z >> 31
                for i in 0..<8 where out.count < count { out.append(UInt8(truncatingIfNeeded: z >> (8 * UInt64(i)))) }
            }
            return out
        }
    }
}
