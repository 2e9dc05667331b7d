/// The parts of a canvas changed since the last present. Overlapping or
/// touching rectangles are merged; past `limit` rectangles everything is
/// merged into one, so presenting never degrades into thousands of tiny copies.
public struct Damage: Equatable {
    public private(set) var rects: [Rect] = []
    public let limit: Int

    public init(limit: Int = 16) { self.limit = max(1, limit) }

    public var isEmpty: Bool { rects.isEmpty }

    /// The bounding box of everything damaged.
    public var bounds: Rect { rects.reduce(Rect.empty) { $0.union($1) } }

    public var area: Int { rects.reduce(0) { $0 + $1.area } }

    public mutating func add(_ r: Rect) {
        if r.isEmpty { return }
        var merged = r
        // Absorb every rectangle the new one overlaps or touches, repeatedly,
        // since a grown rectangle can reach others.
        var changed = true
        while changed {
            changed = false
            var i = 0
            while i < rects.count {
                let o = rects[i]
                let touches = o.x <= merged.maxX && merged.x <= o.maxX && o.y <= merged.maxY && merged.y <= o.maxY
                if touches {
                    merged = merged.union(o)
                    rects.remove(at: i)
                    changed = true
                } else {
                    i += 1
                }
            }
        }
        rects.append(merged)
        if rects.count > limit {
            let all = bounds
            rects = [all]
        }
    }

    public mutating func add(_ other: Damage) {
        for r in other.rects { add(r) }
    }

    public mutating func removeAll() { rects.removeAll(keepingCapacity: true) }
}
