/// What a phrase of the tables means.
enum Meaning: Int, CaseIterable {
    case arrive, uTurn, roundabout, sharpLeft, sharpRight, slightLeft, slightRight, left, right, merge, straight
    case exit, leftSide, rightSide
    /// Ordinal words of roundabout exits: `ordinal` is the first exit,
    /// `Meaning.count + n - 2` the n-th (up to `maximumOrdinal`).
    case ordinal

    static let maximumOrdinal = 12
    static let count = Meaning.allCases.count - 1 + maximumOrdinal
}

/// Every phrase of every table in one index, so that a text is read in a
/// single pass: at each place, only the phrases that begin with the two
/// bytes found there are tried (a few hundred phrases cost a few dozen
/// comparisons on a line of text, on the firmware's small core).
final class PhraseIndex {
    /// The phrases' bytes one after the other; phrase n is
    /// `bytes[starts[n]..<starts[n + 1]]` (flat, so that trying one costs
    /// no reference counting).
    private var bytes: [UInt8] = []
    private var phraseStarts: [Int32] = [0]
    /// Bit 0: a word boundary before, bit 1: after.
    private var flags: [UInt8] = []
    private var meanings: [Int32] = []
    /// Phrases by a hash of their first two bytes: ids of bucket k are
    /// `items[bucketStarts[k]..<bucketStarts[k + 1]]`.
    private var bucketStarts: [Int32] = []
    private var items: [Int32] = []
    static let buckets = 1024

    init(_ entries: [(Phrase, Int)]) {
        var lists = [[Int32]](repeating: [], count: PhraseIndex.buckets)
        for (phrase, meaning) in entries where phrase.bytes.count >= 2 {
            lists[PhraseIndex.bucket(phrase.bytes[0], phrase.bytes[1])].append(Int32(meanings.count))
            bytes += phrase.bytes
            phraseStarts.append(Int32(bytes.count))
            flags.append((phrase.wholeStart ? 1 : 0) | (phrase.wholeEnd ? 2 : 0))
            meanings.append(Int32(meaning))
        }
        bucketStarts.reserveCapacity(PhraseIndex.buckets + 1)
        for list in lists {
            bucketStarts.append(Int32(items.count))
            items += list
        }
        bucketStarts.append(Int32(items.count))
    }

    @inline(__always)
    static func bucket(_ a: UInt8, _ b: UInt8) -> Int { (Int(a) &* 31 &+ Int(b)) & (buckets - 1) }

    /// Where each meaning is first found in `text` (folded), `Int.max` where not.
    func sightings(_ text: UnsafeBufferPointer<UInt8>) -> [Int] {
        var first: [Int] = []
        sightings(text, into: &first)
        return first
    }

    /// `sightings(_:)` into `first`, whose storage is kept (a reader reuses it).
    func sightings(_ t: UnsafeBufferPointer<UInt8>, into first: inout [Int]) {
        if first.count == Meaning.count {
            first.withUnsafeMutableBufferPointer { $0.update(repeating: Int.max) }
        } else {
            first = [Int](repeating: Int.max, count: Meaning.count)
        }
        // Everything the scan reads and writes, where it lies: indexing
        // the arrays checked their bounds, and `first` its uniqueness.
        first.withUnsafeMutableBufferPointer { first in
            meanings.withUnsafeBufferPointer { meanings in
                flags.withUnsafeBufferPointer { flags in
                    bytes.withUnsafeBufferPointer { pb in
                        phraseStarts.withUnsafeBufferPointer { ps in
                            items.withUnsafeBufferPointer { it in
                                bucketStarts.withUnsafeBufferPointer { bs in
                                    PhraseIndex.scan(t, pb, ps, it, bs, meanings, flags, first)
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    private static func scan(_ t: UnsafeBufferPointer<UInt8>, _ pb: UnsafeBufferPointer<UInt8>,
                             _ ps: UnsafeBufferPointer<Int32>, _ it: UnsafeBufferPointer<Int32>,
                             _ bs: UnsafeBufferPointer<Int32>, _ meanings: UnsafeBufferPointer<Int32>,
                             _ flags: UnsafeBufferPointer<UInt8>, _ first: UnsafeMutableBufferPointer<Int>) {
        let count = t.count
        var i = 0
        while i + 1 < count {
            let k = PhraseIndex.bucket(t[i], t[i + 1])
            var j = Int(bs[k])
            let end = Int(bs[k + 1])
            while j < end {
                let id = Int(it[j])
                j += 1
                let meaning = Int(meanings[id])
                if first[meaning] != Int.max { continue }
                let from = Int(ps[id]), to = Int(ps[id + 1])
                let n = to - from
                if i + n > count { continue }
                var k = 0
                while k < n && t[i + k] == pb[from + k] { k += 1 }
                if k < n { continue }
                let f = flags[id]
                if f & 1 != 0 && i > 0 && t[i - 1].isWordByte { continue }
                if f & 2 != 0 && i + n < count && t[i + n].isWordByte { continue }
                first[meaning] = i
            }
            i += 1
        }
    }
}
