import Testing
@testable import BluetoothCore

@Suite struct FIFOTests {
    /// Pushes and pops interleaved so that the ring wraps around and grows
    /// while wrapped: the order is kept throughout, checked against an array.
    @Test func keepsOrderAcrossWrapAndGrowth() {
        var queue = FIFO<Int>()
        var model: [Int] = []
        var next = 0
        for round in 0..<200 {
            for _ in 0..<(round % 7) {
                queue.append(next)
                model.append(next)
                next += 1
            }
            for _ in 0..<(round % 5) {
                #expect(queue.first == model.first)
                #expect(queue.popFirst() == (model.isEmpty ? nil : model.removeFirst()))
            }
            #expect(queue.count == model.count && queue.isEmpty == model.isEmpty)
        }
        while let value = queue.popFirst() { #expect(value == model.removeFirst()) }
        #expect(model.isEmpty && queue.isEmpty && queue.first == nil)
    }

    /// A queue in steady use reuses its slots instead of growing.
    @Test func reusesItsSlots() {
        var queue = FIFO<[UInt8]>()
        var slots = 0
        for i in 0..<1000 {
            queue.append([UInt8(i & 0xFF)])
            queue.append([])
            #expect(queue.popFirst() == [UInt8(i & 0xFF)])
            #expect(queue.popFirst() == [])
            if i == 0 { slots = queue.slots.count }
        }
        // The first growth's slots (four, or what the allocation rounds them up to).
        #expect(slots >= 4 && slots < 8 && queue.slots.count == slots)
    }

    /// What is popped is moved out: the queue keeps no reference to it, so
    /// the receiver can change it without a copy.
    @Test func popMovesTheElementOut() {
        var queue = FIFO<[UInt8]>()
        queue.append([1, 2, 3])
        #expect(queue.popFirst() == [1, 2, 3])
        #expect(queue.slots.allSatisfy { $0 == nil })
        queue.append([4])
        queue.removeAll()
        #expect(queue.isEmpty && queue.popFirst() == nil)
        queue.append([5])
        #expect(queue.popFirst() == [5])
    }
}
