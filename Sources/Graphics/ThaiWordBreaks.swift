import BluetoothCore
import CThai

/// Thai writes no spaces between words: libthai's dictionary says where the
/// words end, and a line may break there. Without the dictionary (libthai-data)
/// Thai keeps the fallback of LineBreaks: any cluster boundary.
final class ThaiWordBreaks {
    private var breaker: OpaquePointer?
    private var loaded = false
    private var text: [UInt8] = []
    private var positions: [Int32] = []

    deinit { if let b = breaker { th_brk_delete(b) } }

    /// The Thai letters, vowels, marks and digits: U+0E01...U+0E5B, which
    /// TIS-620 holds at 0xA1...0xFB.
    @inline(__always)
    static func isThai(_ s: UInt32) -> Bool { s >= 0x0E01 && s <= 0x0E5B }

    /// Marks the word ends inside each Thai stretch of `scalars` as allowed breaks.
    func mark(_ scalars: [UInt32], _ breaks: inout [UInt8]) {
        var i = 0
        while i < scalars.count {
            guard ThaiWordBreaks.isThai(scalars[i]) else { i += 1; continue }
            var j = i
            while j < scalars.count && ThaiWordBreaks.isThai(scalars[j]) { j += 1 }
            if j - i > 1 { markWords(scalars, i, j, &breaks) }
            i = j
        }
    }

    private func markWords(_ scalars: [UInt32], _ start: Int, _ end: Int, _ breaks: inout [UInt8]) {
        guard let b = dictionary() else { return }
        text.removeAll(keepingCapacity: true)
        for k in start..<end { text.append(UInt8(scalars[k] - 0x0E00 + 0xA0)) }
        text.append(0)
        positions.removeAll(keepingCapacity: true)
        positions.append(contentsOf: repeatElement(Int32(0), count: end - start))
        let n = text.withUnsafeBufferPointer { t -> Int32 in
            positions.withUnsafeMutableBufferPointer { p -> Int32 in
                guard let tp = t.baseAddress, let pp = p.baseAddress else { return 0 }
                return th_brk_find_breaks(b, tp, pp, p.count)
            }
        }
        for k in 0..<max(0, min(Int(n), positions.count)) {
            let at = Int(positions[k])
            if at > 0 && at < end - start { breaks[start + at] = LineBreaks.allowed }
        }
    }

    /// Frees the dictionary (the trie, read whole into memory); the next
    /// Thai text loads it again. A dictionary found missing stays missing
    /// (said once).
    func release() {
        guard let b = breaker else { return }
        th_brk_delete(b)
        breaker = nil
        loaded = false
    }

    private func dictionary() -> OpaquePointer? {
        if !loaded {
            loaded = true
            breaker = th_brk_new(nil)
            if breaker == nil {
                Log.warning("fonts", "libthai's dictionary (libthai-data) missing: Thai lines break between any characters")
            }
        }
        return breaker
    }
}
