/// Identifies one rendered glyph: which face of the font set, which glyph,
/// at which pixel size.
public struct GlyphKey: Hashable {
    public var face: UInt16
    public var size: UInt16
    public var glyph: UInt32
    public init(face: UInt16, size: UInt16, glyph: UInt32) {
        self.face = face; self.size = size; self.glyph = glyph
    }
}

/// A rendered glyph: 8-bit coverage bitmap and placement relative to the pen
/// on the baseline.
public struct GlyphBitmap {
    public var width: Int32
    public var height: Int32
    /// Offset of the bitmap's left column from the pen.
    public var left: Int32
    /// Rows of the bitmap above the baseline.
    public var top: Int32
    /// Horizontal advance, 26.6 fixed point.
    public var advance: Int32
    public var coverage: [UInt8]

    /// Memory charged to the cache for this glyph.
    var cost: Int { coverage.count + GlyphCache.entryOverhead }
}

/// Least-recently-used cache of rendered glyphs bounded by bytes (bitmaps
/// plus a fixed per-entry overhead). Entries live in an array threaded as a
/// doubly linked list so lookups and evictions allocate nothing.
public final class GlyphCache {
    static let entryOverhead = 64

    struct Node {
        var key: GlyphKey
        var glyph: GlyphBitmap
        var prev: Int
        var next: Int
    }

    public let budget: Int
    public private(set) var bytes = 0
    public private(set) var hits = 0
    public private(set) var misses = 0
    public private(set) var evictions = 0
    var nodes: [Node] = []
    var free: [Int] = []
    var index: [GlyphKey: Int] = [:]
    var head = -1   // most recently used
    var tail = -1   // least recently used

    public init(budget: Int) { self.budget = max(4096, budget) }

    public var count: Int { index.count }

    /// The glyph if cached; marks it most recently used.
    @inline(__always)
    public func lookup(_ key: GlyphKey) -> Int? {
        guard let slot = index[key] else {
            misses += 1
            return nil
        }
        hits += 1
        moveToFront(slot)
        return slot
    }

    @inline(__always)
    public func glyph(at slot: Int) -> GlyphBitmap { nodes[slot].glyph }

    /// Adds a glyph, evicting least recently used ones past the budget.
    /// Returns its slot.
    @discardableResult
    public func insert(_ key: GlyphKey, _ glyph: GlyphBitmap) -> Int {
        if let old = index[key] {
            bytes -= nodes[old].glyph.cost
            nodes[old].glyph = glyph
            bytes += glyph.cost
            moveToFront(old)
            evict(keeping: old)
            return old
        }
        let node = Node(key: key, glyph: glyph, prev: -1, next: head)
        let slot: Int
        if let f = free.popLast() {
            nodes[f] = node
            slot = f
        } else {
            nodes.append(node)
            slot = nodes.count - 1
        }
        if head >= 0 { nodes[head].prev = slot }
        head = slot
        if tail < 0 { tail = slot }
        index[key] = slot
        bytes += glyph.cost
        evict(keeping: slot)
        return slot
    }

    public func removeAll() {
        nodes.removeAll()
        free.removeAll()
        index.removeAll()
        head = -1; tail = -1; bytes = 0
    }

    private func evict(keeping keep: Int) {
        while bytes > budget && tail >= 0 && tail != keep {
            let victim = tail
            unlink(victim)
            index[nodes[victim].key] = nil
            bytes -= nodes[victim].glyph.cost
            nodes[victim].glyph.coverage = []
            free.append(victim)
            evictions += 1
        }
    }

    private func unlink(_ slot: Int) {
        let p = nodes[slot].prev, n = nodes[slot].next
        if p >= 0 { nodes[p].next = n } else { head = n }
        if n >= 0 { nodes[n].prev = p } else { tail = p }
        nodes[slot].prev = -1
        nodes[slot].next = -1
    }

    @inline(__always)
    private func moveToFront(_ slot: Int) {
        if slot == head { return }
        unlink(slot)
        nodes[slot].next = head
        if head >= 0 { nodes[head].prev = slot }
        head = slot
        if tail < 0 { tail = slot }
    }
}
