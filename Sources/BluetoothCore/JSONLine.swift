/// Builds one JSON object on one line, for the `--events` log and the
/// console. Values are escaped per RFC 8259; no Foundation needed.
///
/// The line is built as UTF-8 bytes, not as a String: the event log writes
/// a line per notification, and String appends (each one a capacity and
/// uniqueness check, a possible copy) cost more than the whole protocol
/// stack spent on that notification.
public struct JSONLine {
    private var bytes: [UInt8]
    private var empty = true

    public init() {
        bytes = []
        bytes.reserveCapacity(256)
        bytes.append(0x7B)  // {
    }

    public mutating func field(_ name: StaticString, _ value: String?) {
        key(name)
        if let v = value { JSONLine.appendString(v, to: &bytes) } else { append("null") }
    }

    public mutating func field(_ name: StaticString, _ value: Int?) {
        key(name)
        if let v = value { appendDecimal(Int64(v)) } else { append("null") }
    }

    public mutating func field(_ name: StaticString, _ value: Int64) {
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
        if v < 0 { bytes.append(0x2D) }
        let a = v.magnitude
        appendDecimal(a / 1000)
        bytes.append(0x2E)  // .
        let frac = a % 1000
        bytes.append(0x30 + UInt8(frac / 100))
        bytes.append(0x30 + UInt8(frac / 10 % 10))
        bytes.append(0x30 + UInt8(frac % 10))
    }

    public var line: String { String(decoding: utf8Line, as: UTF8.self) }

    /// The finished line as UTF-8, without a line break.
    public var utf8Line: [UInt8] {
        var line = bytes
        line.append(0x7D)  // }
        return line
    }

    /// Appends the finished line (without a line break) to `out`, with no
    /// array of its own in between.
    public func appendLine(to out: inout [UInt8]) {
        out.append(contentsOf: bytes)
        out.append(0x7D)  // }
    }

    /// Field names are the event log's own words, written in the source:
    /// plain ASCII with nothing to escape, copied as they are.
    private mutating func key(_ name: StaticString) {
        if !empty { bytes.append(0x2C); bytes.append(0x20) }  // ", "
        empty = false
        bytes.append(0x22)
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(0x22)
        bytes.append(0x3A)  // :
        bytes.append(0x20)
    }

    private mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func appendDecimal(_ value: Int64) {
        if value < 0 { bytes.append(0x2D) }
        appendDecimal(value.magnitude)
    }

    private mutating func appendDecimal(_ value: UInt64) {
        var power: UInt64 = 1
        while value / power >= 10 { power *= 10 }
        while power > 0 {
            bytes.append(0x30 + UInt8(value / power % 10))
            power /= 10
        }
    }

    /// Appends `s` as a JSON string literal (also the JSON module's writer).
    public static func appendString(_ s: String, to out: inout [UInt8]) {
        out.append(0x22)
        var s = s
        s.withUTF8 { utf8 in
            // Bytes of multi-byte UTF-8 sequences are all 0x80 or more and
            // go through as they are; only ASCII may need an escape.
            var start = 0
            var i = 0
            let base = UnsafeRawPointer(utf8.baseAddress)
            while i < utf8.count {
                // Eight bytes at a time where none needs an escape: a line
                // carries a few hundred bytes of text, mostly plain.
                if let base, i + 8 <= utf8.count, !JSONLine.needsEscape(base.loadUnaligned(fromByteOffset: i, as: UInt64.self)) {
                    i += 8
                    continue
                }
                let b = utf8[i]
                i += 1
                guard b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F else { continue }
                let at = i - 1
                out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<at]))
                start = at + 1
                switch b {
                case 0x22: out.append(0x5C); out.append(0x22)
                case 0x5C: out.append(0x5C); out.append(0x5C)
                case 0x0A: out.append(0x5C); out.append(0x6E)
                case 0x0D: out.append(0x5C); out.append(0x72)
                case 0x09: out.append(0x5C); out.append(0x74)
                default:
                    out.append(contentsOf: ("\\u" + hex(UInt32(b), digits: 4)).utf8)
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        }
        out.append(0x22)
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
