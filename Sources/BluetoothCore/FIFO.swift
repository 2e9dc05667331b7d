/// A first-in first-out queue with O(1) amortized push and pop, for the
/// event and transmit queues every sans-I/O layer keeps between calls.
/// Inlinable so that each layer gets a version specialised for its element
/// type instead of the generic one (which looks up type metadata on every call).
public struct FIFO<Element> {
    @usableFromInline var items: [Element] = []
    @usableFromInline var head = 0

    @inlinable public init() {}

    @inlinable public var isEmpty: Bool { head >= items.count }
    @inlinable public var count: Int { items.count - head }

    @inlinable public mutating func append(_ element: Element) { items.append(element) }

    /// The core polls every layer's queues on each pass, most of them
    /// empty: the test for empty is inlined into each layer's poll function,
    /// so an empty poll returns nil at once. (Out of line, the call wrote
    /// nil into a temporary that the poll function then copied out whole,
    /// 257 bytes for the largest element type.)
    @inlinable @inline(__always) public mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
        return takeFirst()
    }

    @inlinable mutating func takeFirst() -> Element {
        let element = items[head]
        head += 1
        // Drop consumed slots once they dominate, so memory stays bounded.
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return element
    }

    @inlinable public var first: Element? { head < items.count ? items[head] : nil }

    @inlinable public mutating func removeAll() {
        items.removeAll()
        head = 0
    }
}
