/// A first-in first-out queue, for the event and transmit queues every
/// sans-I/O layer keeps between calls: a ring of slots that grows when
/// full and is otherwise reused, so a queue in steady use allocates and
/// frees nothing (it used to empty its array each time it ran dry, a call
/// into the standard library and a walk over the slots to destroy them).
/// Inlinable so that each layer gets a version specialised for its element
/// type instead of the generic one (which looks up type metadata on every call).
public struct FIFO<Element> {
    /// Free slots hold nil: `popFirst` moves an element out instead of
    /// copying it, so what it hands on is not shared with the queue (no
    /// retain and release per element, and an array handed on can be
    /// changed in place without being copied first).
    @usableFromInline var slots: [Element?] = []
    /// The first element's slot, and how many follow it (wrapping around).
    @usableFromInline var head = 0
    @usableFromInline var storedCount = 0

    @inlinable public init() {}

    @inlinable public var isEmpty: Bool { storedCount == 0 }
    @inlinable public var count: Int { storedCount }

    /// Consuming: the element is moved into its slot, not copied there
    /// and the caller's copy released.
    @inlinable public mutating func append(_ element: consuming Element) {
        if storedCount == slots.count { grow() }
        var tail = head + storedCount
        if tail >= slots.count { tail -= slots.count }
        // A free slot holds nil, which owns nothing: the element is written
        // over it without destroying it first. (Assigning destroyed the
        // nil through the standard library's generic Optional, a call of
        // some fifty instructions per element.)
        var moving: Element? = consume element
        slots.withUnsafeMutableBufferPointer { $0.baseAddress.unsafelyUnwrapped.advanced(by: tail).initialize(to: moving.take()) }
        storedCount += 1
    }

    /// The core polls every layer's queues on each pass, most of them
    /// empty: the test for empty is inlined into each layer's poll function,
    /// so an empty poll returns nil at once. (Out of line, the call wrote
    /// nil into a temporary that the poll function then copied out whole,
    /// 257 bytes for the largest element type.)
    @inlinable @inline(__always) public mutating func popFirst() -> Element? {
        guard storedCount > 0 else { return nil }
        return takeFirst()
    }

    /// The first element, which must be there (`isEmpty` is false). For
    /// elements large enough to be kept in memory: a `while let` over
    /// `popFirst` ends on a nil that the caller destroys through the
    /// standard library's generic Optional (70-160 instructions, as the
    /// compiler cannot tell its case there); `while !isEmpty` with this
    /// makes no optional the caller must destroy.
    @inlinable @inline(__always) public mutating func removeFirst() -> Element {
        let first = head
        // The element is moved straight out of its slot, never held as an
        // optional: unwrapping an optional temporary (`!`, `unsafelyUnwrapped`)
        // copies the element out of it and then destroys the temporary
        // through the generic Optional, which is what this is meant to
        // avoid. An optional's payload lies at its start (the ABI's layout
        // of single-payload enums), so the slot's `.some` is read as an
        // `Element` there; the slot then holds nil again.
        let element = slots.withUnsafeMutableBufferPointer { slots -> Element in
            let slot = slots.baseAddress.unsafelyUnwrapped.advanced(by: first)
            let element = UnsafeMutableRawPointer(slot).assumingMemoryBound(to: Element.self).move()
            slot.initialize(to: nil)
            return element
        }
        head += 1
        if head == slots.count { head = 0 }
        storedCount -= 1
        return element
    }

    @inlinable mutating func takeFirst() -> Element? {
        let first = head
        let element = slots.withUnsafeMutableBufferPointer { slots -> Element? in
            let slot = slots.baseAddress.unsafelyUnwrapped.advanced(by: first)
            defer { slot.initialize(to: nil) }
            return slot.move()
        }
        head += 1
        if head == slots.count { head = 0 }
        storedCount -= 1
        return element
    }

    /// Twice the slots (at least four), the elements moved to the front in order.
    @inlinable mutating func grow() {
        var larger: [Element?] = []
        larger.reserveCapacity(max(4, slots.count * 2))
        while storedCount > 0 { larger.append(takeFirst()) }
        storedCount = larger.count
        while larger.count < larger.capacity { larger.append(nil) }
        slots = larger
        head = 0
    }

    @inlinable public var first: Element? { storedCount > 0 ? slots[head] : nil }

    @inlinable public mutating func removeAll() {
        slots = []
        head = 0
        storedCount = 0
    }
}
