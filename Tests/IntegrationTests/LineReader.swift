import Foundation

/// Collects a pipe's output line by line on a background queue so a test can
/// wait for a specific line with a timeout.
final class LineReader: @unchecked Sendable {
    private let lock = NSCondition()
    private var lines: [String] = []
    private var partial = Data()
    private var closed = false
    private var consumed = 0

    init(_ handle: FileHandle) {
        handle.readabilityHandler = { [weak self] h in
            let data = h.availableData
            guard let self else { return }
            self.lock.lock()
            if data.isEmpty {
                self.closed = true
                h.readabilityHandler = nil
            } else {
                self.partial.append(data)
                while let newline = self.partial.firstIndex(of: 0x0A) {
                    let line = String(decoding: self.partial[self.partial.startIndex..<newline], as: UTF8.self)
                    self.partial.removeSubrange(self.partial.startIndex...newline)
                    self.lines.append(line)
                }
            }
            self.lock.broadcast()
            self.lock.unlock()
        }
    }

    var all: [String] {
        lock.lock(); defer { lock.unlock() }
        return lines
    }

    /// Waits for any line, old or new, that satisfies `match`, consuming
    /// nothing: for answers that are unique (a command's reply by its id).
    func find(timeout: TimeInterval, where match: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock(); defer { lock.unlock() }
        var checked = 0
        while true {
            while checked < lines.count {
                if match(lines[checked]) { return lines[checked] }
                checked += 1
            }
            if closed { return nil }
            if !lock.wait(until: deadline) { return nil }
        }
    }

    /// Waits for the next unconsumed line that satisfies `match`, consuming
    /// everything up to it.
    func next(timeout: TimeInterval, where match: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock(); defer { lock.unlock() }
        while true {
            while consumed < lines.count {
                let line = lines[consumed]
                consumed += 1
                if match(line) { return line }
            }
            if closed { return nil }
            if !lock.wait(until: deadline) { return nil }
        }
    }
}
