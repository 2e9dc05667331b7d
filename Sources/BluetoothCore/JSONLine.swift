/// Builds one JSON object on one line, for the `--events` log and the
/// console. Values are escaped per RFC 8259; no Foundation needed.
///
/// The line is built as UTF-8 bytes, not as a String: the event log writes
/// a line per notification, and String appends (each one a capacity and
/// uniqueness check, a possible copy) cost more than the whole protocol
/// stack spent on that notification. For the same reason the bytes are
/// written through a pointer into storage of its own (`JSONBytes`): a
/// field's name with its quotes, colon and separator is one capacity check
/// and one copy, where appending to an array checked capacity and
/// uniqueness for each of its seven pieces.
///
/// Several lines can be built in one value (`nextLine`), so that the event
/// log builds a wake-up's lines in one buffer it keeps and writes them with
/// one write(2), with no array per line.
public struct JSONLine {
    // Inlinable, like the fields that write through them: the event log
    // writes a dozen fields per line, and inlined a field's name (a
    // constant) is copied as a few stores instead of through calls.
    @usableFromInline var storage: JSONBytes
    @usableFromInline var empty = true

    public init() {
        storage = JSONBytes(capacity: 256)
        storage.append(0x7B)  // {
    }

    @inlinable public mutating func field(_ name: StaticString, _ value: String?) {
        key(name)
        if let v = value { JSONLine.escape(v, to: &storage) } else { append("null") }
    }

    /// A word of the log's own as a string (an event's name, a case's
    /// name: `NotificationKind.word`): plain ASCII with nothing to escape,
    /// written with its name and quotes in one piece, never scanned.
    @inlinable @inline(__always) public mutating func field(_ name: StaticString, word: StaticString) {
        guard word.hasPointerRepresentation else {
            key(name)
            return word.withUTF8Buffer { JSONLine.quoted($0.baseAddress!, count: $0.count, to: unique()) }
        }
        JSONLine.quoted(word.utf8Start, count: word.utf8CodeUnitCount, at: key(name, room: word.utf8CodeUnitCount + 2))
    }

    @inlinable @inline(__always)
    static func quoted(_ word: UnsafePointer<UInt8>, count m: Int, at p: UnsafeMutablePointer<UInt8>) {
        p[0] = 0x22
        (p + 1).update(from: word, count: m)
        p[m + 1] = 0x22
    }

    @usableFromInline static func quoted(_ word: UnsafePointer<UInt8>, count m: Int, to b: JSONBytes) {
        quoted(word, count: m, at: b.reserve(m + 2))
    }

    @inlinable public mutating func field(_ name: StaticString, _ value: Int?) {
        key(name)
        if let v = value { appendDecimal(Int64(v)) } else { append("null") }
    }

    @inlinable public mutating func field(_ name: StaticString, _ value: Int64) {
        key(name)
        appendDecimal(value)
    }

    public mutating func field(_ name: StaticString, _ value: Bool) {
        key(name)
        append(value ? "true" : "false")
    }

    /// A number with up to three decimals (seconds with millisecond precision).
    public mutating func field(_ name: StaticString, milliunits value: Int64?) {
        key(name)
        guard let v = value else { append("null"); return }
        let a = v.magnitude
        appendDecimal(a / 1000, negative: v < 0)
        let frac = a % 1000
        let p = unique().reserve(4)
        p[0] = 0x2E  // .
        p[1] = 0x30 + UInt8(frac / 100)
        p[2] = 0x30 + UInt8(frac / 10 % 10)
        p[3] = 0x30 + UInt8(frac % 10)
    }

    public var line: String { String(decoding: utf8Line, as: UTF8.self) }

    /// The finished line as UTF-8, without a line break.
    public var utf8Line: [UInt8] {
        var line: [UInt8] = []
        appendLine(to: &line)
        return line
    }

    /// Appends the finished line (without a line break) to `out`, with no
    /// array of its own in between.
    public func appendLine(to out: inout [UInt8]) {
        storage.withBytes { out.append(contentsOf: $0) }
        out.append(0x7D)  // }
    }

    /// Ends this line and begins another object after it in the same
    /// bytes: `{...}` and a line break, then `{`.
    public mutating func nextLine() {
        let p = unique().reserve(3)
        p[0] = 0x7D  // }
        p[1] = 0x0A
        p[2] = 0x7B  // {
        empty = true
    }

    /// The lines built so far, each with its line break, for one write;
    /// then everything is cleared for the next (the storage is kept).
    public mutating func takeLines<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let p = unique().reserve(2)
        p[0] = 0x7D  // }
        p[1] = 0x0A
        let result = storage.withBytes(body)
        storage.count = 1  // the `{` of the next object stays
        empty = true
        return result
    }

    /// The storage, copied first if another value shares it (a copied line).
    @inlinable @inline(__always)
    mutating func unique() -> JSONBytes {
        if !isKnownUniquelyReferenced(&storage) { storage = storage.copy() }
        return storage
    }

    /// Field names are the event log's own words, written in the source:
    /// plain ASCII with nothing to escape, copied as they are with what
    /// surrounds them (`, "name": `) in one piece.
    @inlinable mutating func key(_ name: StaticString) {
        _ = key(name, room: 0)
    }

    /// Writes the key as `key(_:)` does with room for `extra` bytes of its
    /// value after it, counted as written: where the value goes.
    @inlinable @inline(__always)
    mutating func key(_ name: StaticString, room extra: Int) -> UnsafeMutablePointer<UInt8> {
        let b = unique()
        let first = empty
        empty = false
        // A one-character name may be held as a scalar, not as bytes.
        guard name.hasPointerRepresentation else {
            return name.withUTF8Buffer { JSONLine.key($0.baseAddress!, count: $0.count, first: first, room: extra, to: b) }
        }
        return JSONLine.key(name.utf8Start, count: name.utf8CodeUnitCount, first: first, room: extra, to: b)
    }

    @inlinable @inline(__always)
    static func key(_ name: UnsafePointer<UInt8>, count n: Int, first: Bool, room extra: Int,
                            to b: JSONBytes) -> UnsafeMutablePointer<UInt8> {
        var p = b.reserve(n + 6 + extra)
        if first {
            b.count -= 2  // no `, ` before the first field
        } else {
            p[0] = 0x2C  // ,
            p[1] = 0x20
            p += 2
        }
        p[0] = 0x22
        (p + 1).update(from: name, count: n)
        p[n + 1] = 0x22
        p[n + 2] = 0x3A  // :
        p[n + 3] = 0x20
        return p + n + 4
    }

    @usableFromInline mutating func append(_ literal: StaticString) {
        let b = unique()
        literal.withUTF8Buffer { if let start = $0.baseAddress { b.append(start, count: $0.count) } }
    }

    @inlinable mutating func appendDecimal(_ value: Int64) {
        appendDecimal(value.magnitude, negative: value < 0)
    }

    /// The digits are made right to left in a small buffer and copied once.
    @usableFromInline mutating func appendDecimal(_ value: UInt64, negative: Bool) {
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: a sign and 20 digits fit
        let b = unique()
        withUnsafeMutableBytes(of: &digits) { raw in
            var i = raw.count
            var v = value
            repeat {
                i -= 1
                raw[i] = 0x30 + UInt8(v % 10)
                v /= 10
            } while v > 0
            if negative { i -= 1; raw[i] = 0x2D }
            b.append(raw.baseAddress!.assumingMemoryBound(to: UInt8.self) + i, count: raw.count - i)
        }
    }

    /// Appends `s` as a JSON string literal (also the JSON module's writer).
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        var b = JSONBytes(capacity: s.utf8.count + 2)
        escape(s, to: &b)
        b.withBytes { out.append(contentsOf: $0) }
    }

    /// `s` as a JSON string literal, its plain runs copied whole.
    @usableFromInline static func escape(_ s: String, to b: inout JSONBytes) {
        if !isKnownUniquelyReferenced(&b) { b = b.copy() }
        let out = b
        var s = s
        s.withUTF8 { utf8 in
            let count = utf8.count
            // Room for the whole text in its quotes, and for a word stored
            // past its end: plain text (nearly every line's) is stored
            // eight bytes at a time as it is checked, with no second pass.
            let start = out.count
            let q = out.reserve(count + 10)
            out.count -= 8
            q[0] = 0x22
            guard let base = utf8.baseAddress else { q[1] = 0x22; return }
            let source = UnsafeRawPointer(base), target = UnsafeMutableRawPointer(q + 1)
            // A line carries a few hundred bytes of text, mostly plain. The
            // last (or only) eight are read ending at the end, overlapping
            // what was read before, or padded with spaces when the text is
            // shorter: plain text is then stored whole without a
            // byte-by-byte tail.
            var plain = 0
            while plain + 8 <= count {
                let word = source.loadUnaligned(fromByteOffset: plain, as: UInt64.self)
                if needsEscape(word) { break }
                target.storeBytes(of: word, toByteOffset: plain, as: UInt64.self)
                plain += 8
            }
            // Only when fewer than eight are left (the loop did not stop at an escape).
            if plain < count && count - plain < 8 {
                if count >= 8 {
                    let last = source.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
                    if !needsEscape(last) {
                        target.storeBytes(of: last, toByteOffset: count - 8, as: UInt64.self)
                        plain = count
                    }
                } else {
                    let padded = paddedWithSpaces(base, count: count)
                    if !needsEscape(padded) {
                        target.storeBytes(of: padded, toByteOffset: 0, as: UInt64.self)
                        plain = count
                    }
                }
            }
            if plain == count { q[count + 1] = 0x22; return }
            // An escape at or after `plain`: what is before it is kept.
            // Bytes of multi-byte UTF-8 sequences are all 0x80 or more and
            // go through as they are; only ASCII may need an escape.
            out.count = start + 1 + plain
            var from = plain
            for i in plain..<count {
                let c = base[i]
                guard c < 0x20 || c == 0x22 || c == 0x5C || c == 0x7F else { continue }
                out.append(base + from, count: i - from)
                from = i + 1
                switch c {
                case 0x22: out.append(0x5C); out.append(0x22)
                case 0x5C: out.append(0x5C); out.append(0x5C)
                case 0x0A: out.append(0x5C); out.append(0x6E)
                case 0x0D: out.append(0x5C); out.append(0x72)
                case 0x09: out.append(0x5C); out.append(0x74)
                default:
                    for h in ("\\u" + hex(UInt32(c), digits: 4)).utf8 { out.append(h) }
                }
            }
            out.append(base + from, count: count - from)
            out.append(0x22)
        }
    }

    /// The `count` (under eight) bytes at `base`, then spaces, as one word.
    @inline(__always)
    private static func paddedWithSpaces(_ base: UnsafePointer<UInt8>, count: Int) -> UInt64 {
        var word: UInt64 = 0x2020_2020_2020_2020
        withUnsafeMutableBytes(of: &word) { $0.baseAddress!.copyMemory(from: base, byteCount: count) }
        return word
    }

    /// Whether any of the eight bytes of `x` is a control character, `"`,
    /// `\` or DEL (the bytes a JSON string escapes), by the classic tests
    /// on all eight at once: `v - 0x01…` borrows into the high bit of a
    /// byte that is zero, `x - 0x20…` into that of a byte below 0x20 (bytes
    /// of 0x80 and above, whose high bit is set in `x`, are masked out by
    /// `~x`). A borrow can only spread from a byte that matched, so there is
    /// no false "none".
    @inline(__always)
    static func needsEscape(_ x: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        func hasZero(_ v: UInt64) -> Bool { (v &- ones) & ~v & highs != 0 }
        let control = (x &- 0x2020_2020_2020_2020) & ~x & highs != 0
        return control || hasZero(x ^ 0x2222_2222_2222_2222) || hasZero(x ^ 0x5C5C_5C5C_5C5C_5C5C)
            || hasZero(x ^ 0x7F7F_7F7F_7F7F_7F7F)
    }
}

/// Growable bytes written through a pointer: `reserve` checks the room
/// once for a piece of known length, which is then stored directly.
@usableFromInline final class JSONBytes {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var count = 0
    @usableFromInline var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = UnsafeMutablePointer<UInt8>.allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    @usableFromInline func copy() -> JSONBytes {
        let c = JSONBytes(capacity: capacity)
        c.base.update(from: base, count: count)
        c.count = count
        return c
    }

    /// Room for `n` more bytes, counted as written: the caller stores them.
    @inlinable @inline(__always)
    func reserve(_ n: Int) -> UnsafeMutablePointer<UInt8> {
        if count + n > capacity { grow(count + n) }
        let p = base + count
        count += n
        return p
    }

    @inlinable @inline(__always)
    func append(_ byte: UInt8) { reserve(1).pointee = byte }

    @inlinable @inline(__always)
    func append(_ bytes: UnsafePointer<UInt8>, count n: Int) {
        reserve(n).update(from: bytes, count: n)
    }

    func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        body(UnsafeBufferPointer(start: base, count: count))
    }

    @usableFromInline func grow(_ needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        bigger.update(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity = newCapacity
    }
}
