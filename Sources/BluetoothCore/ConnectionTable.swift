/// What each layer keeps per link, by connection handle: a map with the
/// few `Dictionary` operations the layers use, kept as two small arrays.
///
/// A head unit has one to three links at a time, and every packet looks up
/// its link in several layers. A scan of three handles costs less than
/// hashing one, iterates in connection order (stable, unlike a
/// dictionary's), and changes a value where it lies. Inlinable, like
/// `FIFO`: each layer gets it specialised for its value type instead of
/// generic code that looks up type metadata on every call.
public struct ConnectionTable<Value> {
    @usableFromInline var storedKeys: [ConnectionHandle] = []
    @usableFromInline var storedValues: [Value] = []

    @inlinable public init() {}

    /// The handles, in the order they were added.
    @inlinable public var keys: [ConnectionHandle] { storedKeys }
    /// The values, in the order of `keys`.
    @inlinable public var values: [Value] { storedValues }

    @inlinable public var count: Int { storedKeys.count }
    @inlinable public var isEmpty: Bool { storedKeys.isEmpty }

    /// Whether there is a value for `handle`. `self[handle] != nil` copies
    /// the value out first (retaining what it holds) only to drop it.
    @inlinable public func contains(_ handle: ConnectionHandle) -> Bool { index(of: handle) != nil }

    @inlinable
    func index(of handle: ConnectionHandle) -> Int? {
        var i = 0
        while i < storedKeys.count {
            if storedKeys[i] == handle { return i }
            i += 1
        }
        return nil
    }

    /// nil: no value for `handle`. Setting nil removes it; a new handle goes last.
    @inlinable public subscript(handle: ConnectionHandle) -> Value? {
        get {
            guard let i = index(of: handle) else { return nil }
            return storedValues[i]
        }
        set {
            if let i = index(of: handle) {
                if let newValue { storedValues[i] = newValue } else { storedKeys.remove(at: i); storedValues.remove(at: i) }
            } else if let newValue {
                storedKeys.append(handle)
                storedValues.append(newValue)
            }
        }
        _modify {
            // The value is moved out and back, so that changing it (an
            // array appended to, a field set) copies nothing.
            var value: Value?
            let i = index(of: handle)
            if let i { value = storedValues.remove(at: i) }
            defer {
                if let value {
                    if let i { storedKeys[i] = handle; storedValues.insert(value, at: i) } else { storedKeys.append(handle); storedValues.append(value) }
                } else if let i {
                    storedKeys.remove(at: i)
                }
            }
            yield &value
        }
    }

    /// Changes the value for `handle` where it lies in the array and
    /// returns what `change` returns; nil when there is no value for
    /// `handle`. The optional subscript's `_modify` moves the value out of
    /// the array and back in (it must be able to remove it): on a hot path
    /// that move costs more than the change.
    @inlinable @discardableResult
    public mutating func update<Result>(_ handle: ConnectionHandle, _ change: (inout Value) -> Result) -> Result? {
        guard let i = index(of: handle) else { return nil }
        return change(&storedValues[i])
    }

    /// The value for `handle`, `defaultValue` where there is none yet.
    @inlinable public subscript(handle: ConnectionHandle, default defaultValue: @autoclosure () -> Value) -> Value {
        get { self[handle] ?? defaultValue() }
        _modify {
            var value: Value
            let i = index(of: handle)
            if let i { value = storedValues.remove(at: i) } else { value = defaultValue() }
            defer {
                if let i { storedValues.insert(value, at: i) } else { storedKeys.append(handle); storedValues.append(value) }
            }
            yield &value
        }
    }

    @inlinable @discardableResult
    public mutating func removeValue(forKey handle: ConnectionHandle) -> Value? {
        guard let i = index(of: handle) else { return nil }
        storedKeys.remove(at: i)
        return storedValues.remove(at: i)
    }

    @inlinable public mutating func removeAll() {
        storedKeys.removeAll()
        storedValues.removeAll()
    }
}

extension ConnectionTable: Sequence {
    public struct Iterator: IteratorProtocol {
        @usableFromInline let table: ConnectionTable
        @usableFromInline var position = 0

        @inlinable init(table: ConnectionTable) { self.table = table }

        @inlinable public mutating func next() -> (key: ConnectionHandle, value: Value)? {
            guard position < table.storedKeys.count else { return nil }
            defer { position += 1 }
            return (table.storedKeys[position], table.storedValues[position])
        }
    }

    @inlinable public func makeIterator() -> Iterator { Iterator(table: self) }
    @inlinable public var underestimatedCount: Int { count }
}

extension ConnectionTable: ExpressibleByDictionaryLiteral {
    @inlinable public init(dictionaryLiteral elements: (ConnectionHandle, Value)...) {
        for (handle, value) in elements { self[handle] = value }
    }
}
