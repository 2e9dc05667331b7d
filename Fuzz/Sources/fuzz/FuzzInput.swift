/// Reads a fuzz input as a script of operations. Running out of bytes is not
/// an error: every read then returns zeros or fewer bytes, so any input is a
/// valid script.
struct FuzzInput {
    let bytes: [UInt8]
    private(set) var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8 {
        guard offset < bytes.count else { return 0 }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func bool() -> Bool { byte() & 1 == 1 }

    mutating func u16() -> UInt16 { UInt16(byte()) | UInt16(byte()) << 8 }

    mutating func u32() -> UInt32 { UInt32(u16()) | UInt32(u16()) << 16 }

    mutating func u64() -> UInt64 { UInt64(u32()) | UInt64(u32()) << 32 }

    mutating func bytes(_ count: Int) -> [UInt8] {
        let end = min(bytes.count, offset + max(0, count))
        defer { offset = end }
        return Array(bytes[offset..<end])
    }

    /// A length byte, then that many bytes.
    mutating func chunk() -> [UInt8] { bytes(Int(byte())) }

    mutating func rest() -> [UInt8] { bytes(bytes.count - offset) }
}

/// Writes inputs in the format `FuzzInput` reads: the seeds.
struct Script {
    private(set) var bytes: [UInt8] = []

    init(_ bytes: [UInt8] = []) { self.bytes = bytes }

    mutating func byte(_ b: UInt8) { bytes.append(b) }

    mutating func u16(_ v: UInt16) { bytes += [UInt8(v & 0xFF), UInt8(v >> 8)] }

    mutating func u32(_ v: UInt32) {
        u16(UInt16(v & 0xFFFF))
        u16(UInt16(v >> 16))
    }

    mutating func u64(_ v: UInt64) {
        u32(UInt32(v & 0xFFFF_FFFF))
        u32(UInt32(v >> 32))
    }

    mutating func raw(_ b: [UInt8]) { bytes += b }

    mutating func chunk(_ b: [UInt8]) {
        precondition(b.count <= 255, "a chunk holds at most 255 bytes")
        bytes.append(UInt8(b.count))
        bytes += b
    }
}

/// A small deterministic generator (SplitMix64) for choices derived from the
/// input, such as where to cut a byte stream: the same input always runs the
/// same way.
struct SplitMix {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }

    /// A seed from the bytes themselves (FNV-1a).
    static func seed(_ bytes: [UInt8]) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return h
    }
}
