/// Builds one JSON object on one line, for the `--events` log and the
/// console. Values are escaped per RFC 8259; no Foundation needed.
public struct JSONLine {
    public private(set) var text = "{"
    private var empty = true

    public init() {}

    public mutating func field(_ name: String, _ value: String?) {
        key(name)
        if let v = value { JSONLine.appendString(v, to: &text) } else { text += "null" }
    }

    public mutating func field(_ name: String, _ value: Int?) {
        key(name)
        text += value.map { "\($0)" } ?? "null"
    }

    public mutating func field(_ name: String, _ value: Int64) {
        key(name)
        text += "\(value)"
    }

    public mutating func field(_ name: String, _ value: Bool) {
        key(name)
        text += value ? "true" : "false"
    }

    /// A number with up to three decimals (seconds with millisecond precision).
    public mutating func field(_ name: String, milliunits value: Int64?) {
        key(name)
        guard let v = value else { text += "null"; return }
        let sign = v < 0 ? "-" : ""
        let a = v < 0 ? -v : v
        var frac = "\(a % 1000)"
        while frac.count < 3 { frac = "0" + frac }
        text += "\(sign)\(a / 1000).\(frac)"
    }

    public var line: String { text + "}" }

    private mutating func key(_ name: String) {
        if !empty { text += ", " }
        empty = false
        JSONLine.appendString(name, to: &text)
        text += ": "
    }

    static func appendString(_ s: String, to out: inout String) {
        out += "\""
        // Almost every string needs no escape: append it whole instead of
        // scalar by scalar (the event log writes one line per notification).
        if !s.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) {
            out += s
            out += "\""
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u" + hex(scalar.value, digits: 4)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
    }
}
