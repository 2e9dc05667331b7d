/// The phone's 32-bit handle for one iOS notification. Valid within one
/// ANCS session only: never carried over to the next.
public struct NotificationUID: Hashable, Comparable, CustomStringConvertible {
    public let value: UInt32

    public init(_ value: UInt32) { self.value = value }

    /// A UID the phone never hands out in practice; the liveness probe asks
    /// about it and expects "invalid parameter" back.
    public static let probe = NotificationUID(0xFFFF_FFFF)

    public static func < (a: NotificationUID, b: NotificationUID) -> Bool { a.value < b.value }

    /// What a Dictionary hashes a UID with: the ANCS client looks its
    /// notifications up by UID several times per notification, and the
    /// standard library's hasher (SipHash, about 150 instructions for four
    /// bytes) was most of each lookup. A 64-bit finaliser (MurmurHash3's)
    /// over the UID and the table's random seed spreads sequential UIDs
    /// and, with a per-process seed, is no table an attacker can precompute
    /// collisions for (a table holds at most a few hundred UIDs).
    public func _rawHashValue(seed: Int) -> Int {
        var x = UInt64(value) ^ UInt64(bitPattern: Int64(seed))
        x ^= x >> 33
        x &*= 0xFF51_AFD7_ED55_8CCD
        x ^= x >> 33
        x &*= 0xC4CE_B9FE_1A85_EC53
        x ^= x >> 33
        return Int(truncatingIfNeeded: x)
    }

    public var description: String { "\(value)" }
}
