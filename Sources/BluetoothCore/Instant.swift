/// A point on the monotonic clock, in milliseconds. Sans-I/O layers never
/// read a clock: the platform passes `Instant`s in, and layers answer with
/// the next `Instant` at which they want to be woken.
public struct Instant: Comparable, Hashable, CustomStringConvertible {
    public var milliseconds: Int64

    public init(milliseconds: Int64) { self.milliseconds = milliseconds }

    public static let zero = Instant(milliseconds: 0)

    public static func < (a: Instant, b: Instant) -> Bool { a.milliseconds < b.milliseconds }

    public func adding(milliseconds delta: Int64) -> Instant { Instant(milliseconds: milliseconds + delta) }
    public func adding(seconds delta: Int64) -> Instant { Instant(milliseconds: milliseconds + delta * 1000) }

    public func millisecondsSince(_ earlier: Instant) -> Int64 { milliseconds - earlier.milliseconds }

    public var description: String { "\(milliseconds)ms" }
}

/// The earlier of two optional deadlines.
public func earliest(_ a: Instant?, _ b: Instant?) -> Instant? {
    switch (a, b) {
    case (nil, nil): return nil
    case (let x?, nil): return x
    case (nil, let y?): return y
    case (let x?, let y?): return min(x, y)
    }
}
