/// A first-in first-out queue with O(1) amortized push and pop, for the
/// event and transmit queues every sans-I/O layer keeps between calls.
public struct FIFO<Element> {
    private var items: [Element] = []
    private var head = 0

    public init() {}

    public var isEmpty: Bool { head >= items.count }
    public var count: Int { items.count - head }

    public mutating func append(_ element: Element) { items.append(element) }

    public mutating func popFirst() -> Element? {
        guard head < items.count else { return nil }
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

    public var first: Element? { head < items.count ? items[head] : nil }

    public mutating func removeAll() {
        items.removeAll()
        head = 0
    }
}
