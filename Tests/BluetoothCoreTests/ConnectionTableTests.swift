import Testing
@testable import BluetoothCore

@Suite struct ConnectionTableTests {
    let a = ConnectionHandle(0x40), b = ConnectionHandle(0x41), c = ConnectionHandle(0x42)

    @Test func addReplaceRemoveKeepConnectionOrder() {
        var t = ConnectionTable<String>()
        #expect(t.isEmpty && t[a] == nil)
        t[b] = "b"
        t[a] = "a"
        t[c] = "c"
        #expect(t.keys == [b, a, c] && t.values == ["b", "a", "c"] && t.count == 3)
        t[a] = "A"
        #expect(t.keys == [b, a, c] && t[a] == "A")
        #expect(t.removeValue(forKey: a) == "A")
        #expect(t.removeValue(forKey: a) == nil)
        t[b] = nil
        #expect(t.keys == [c] && t.values == ["c"])
        t.removeAll()
        #expect(t.isEmpty && t.values.isEmpty)
    }

    @Test func changesInPlace() {
        var t: ConnectionTable<[Int]> = [:]
        t[a, default: []].append(1)
        t[b, default: []].append(2)
        t[a, default: []].append(3)
        #expect(t[a] == [1, 3] && t[b] == [2] && t.keys == [a, b])
        t[b]?.append(4)
        #expect(t[b] == [2, 4] && t.keys == [a, b])
        t[c]?.append(5)  // no value: nothing added
        #expect(t[c] == nil && t.count == 2)
        // Set to nil through the optional chain's write-back: removed.
        func clear(_ v: inout [Int]?) { v = nil }
        clear(&t[a])
        #expect(t.keys == [b] && t[a] == nil)
        // Set through an absent key: added last.
        func fill(_ v: inout [Int]?) { v = [9] }
        fill(&t[c])
        #expect(t.keys == [b, c] && t[c] == [9])
    }

    @Test func iteratesPairsInOrder() {
        let t: ConnectionTable<Int> = [c: 3, a: 1]
        var seen: [(ConnectionHandle, Int)] = []
        for (handle, value) in t { seen.append((handle, value)) }
        #expect(seen.map(\.0) == [c, a] && seen.map(\.1) == [3, 1])
        #expect(t.values.reduce(0, +) == 4)
    }

    /// A value held in the table is not copied when changed in place: the
    /// array's storage stays the same.
    @Test func inPlaceChangeDoesNotCopyTheValue() {
        var t = ConnectionTable<[UInt8]>()
        t[a] = [UInt8](repeating: 0, count: 64)
        let before = t[a]!.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        t[a]![0] = 1
        t[a, default: []][1] = 2
        let after = t[a]!.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        #expect(before == after && t[a]![0] == 1 && t[a]![1] == 2)
    }
}
