import CFriBidi

/// The Unicode bidirectional algorithm for one paragraph, through FriBidi:
/// the embedding level of every character (even: left to right, odd: right
/// to left) and the paragraph's own direction, from its first strong
/// character (rules P2, P3). Reordering happens per line, after breaking
/// (`BidiLevels.visualOrder`).
struct BidiLevels {
    /// Scratch buffers kept between paragraphs.
    private var types: [FriBidiCharType] = []
    private var brackets: [FriBidiBracketType] = []
    private var fribidiLevels: [FriBidiLevel] = []

    /// Characters below Hebrew are never right to left and hold no bidi
    /// control, so such a paragraph is one left-to-right level.
    @inline(__always)
    static func mayBeRightToLeft(_ s: UInt32) -> Bool { s >= 0x0590 }

    /// Fills `levels` (one per scalar); returns true for a right-to-left paragraph.
    mutating func resolve(_ scalars: [UInt32], into levels: inout [UInt8]) -> Bool {
        let n = scalars.count
        levels.removeAll(keepingCapacity: true)
        levels.append(contentsOf: repeatElement(0, count: n))
        var any = false
        for s in scalars where BidiLevels.mayBeRightToLeft(s) { any = true; break }
        if !any || n == 0 { return false }
        types.removeAll(keepingCapacity: true)
        types.append(contentsOf: repeatElement(FriBidiCharType(0), count: n))
        brackets.removeAll(keepingCapacity: true)
        brackets.append(contentsOf: repeatElement(FriBidiBracketType(0), count: n))
        fribidiLevels.removeAll(keepingCapacity: true)
        fribidiLevels.append(contentsOf: repeatElement(FriBidiLevel(0), count: n))
        var direction = nn_fribidi_par_on
        let ok = scalars.withUnsafeBufferPointer { text -> Bool in
            guard let t = text.baseAddress else { return false }
            return types.withUnsafeMutableBufferPointer { ty -> Bool in
                guard let tp = ty.baseAddress else { return false }
                fribidi_get_bidi_types(t, FriBidiStrIndex(n), tp)
                return brackets.withUnsafeMutableBufferPointer { br -> Bool in
                    guard let bp = br.baseAddress else { return false }
                    fribidi_get_bracket_types(t, FriBidiStrIndex(n), tp, bp)
                    return fribidiLevels.withUnsafeMutableBufferPointer { lv -> Bool in
                        guard let lp = lv.baseAddress else { return false }
                        return fribidi_get_par_embedding_levels_ex(tp, bp, FriBidiStrIndex(n), &direction, lp) > 0
                    }
                }
            }
        }
        // FriBidi fails only when it cannot allocate: then the text is set
        // left to right rather than not at all.
        guard ok else { return false }
        for i in 0..<n { levels[i] = UInt8(clamping: Int(fribidiLevels[i])) }
        return direction == nn_fribidi_par_rtl
    }

    /// Rule L2: the visual order of a line's runs given their levels
    /// (logical order in, indices into `levels` out): from the highest
    /// level down to the lowest odd one, every maximal sequence of runs at
    /// that level or higher is reversed.
    static func visualOrder(_ levels: [UInt8], into order: inout [Int]) {
        order.removeAll(keepingCapacity: true)
        for i in 0..<levels.count { order.append(i) }
        guard let highest = levels.max() else { return }
        var lowestOdd = UInt8.max
        for l in levels where l & 1 == 1 && l < lowestOdd { lowestOdd = l }
        if lowestOdd == UInt8.max { return }
        var level = highest
        while level >= lowestOdd {
            var i = 0
            while i < order.count {
                if levels[order[i]] >= level {
                    var j = i
                    while j < order.count && levels[order[j]] >= level { j += 1 }
                    order[i..<j].reverse()
                    i = j
                } else {
                    i += 1
                }
            }
            if level == 0 { break }
            level -= 1
        }
    }
}
