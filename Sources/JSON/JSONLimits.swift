/// Bounds on what one parse may build, so a hostile or broken sender cannot
/// make the head unit recurse or allocate without end.
public struct JSONLimits: Equatable {
    /// Input bytes.
    public var maxSize: Int
    /// Nesting of arrays and objects.
    public var maxDepth: Int
    /// Values of any kind (each member, element and scalar counts one).
    public var maxElements: Int

    public init(maxSize: Int, maxDepth: Int, maxElements: Int) {
        self.maxSize = maxSize
        self.maxDepth = maxDepth
        self.maxElements = maxElements
    }

    /// Enough for every NotifBridge message: a notification event carries
    /// text, a few actions and up to 16 attachment descriptions, nested
    /// four deep; 32 leaves room for fields not known today.
    public static let standard = JSONLimits(maxSize: 256 * 1024, maxDepth: 32, maxElements: 4096)
}
