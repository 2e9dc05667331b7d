import BluetoothCore

/// Compact JSON (no white space), as JSONEncoder writes it, for the
/// messages the head unit sends back: reverse commands and receipts.
extension JSONValue {
    public var encoded: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(128)
        write(to: &out)
        return out
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .object(let members):
            out.append(0x7B)
            for (i, member) in members.enumerated() {
                if i > 0 { out.append(0x2C) }
                JSONLine.appendString(member.key, to: &out)
                out.append(0x3A)
                member.value.write(to: &out)
            }
            out.append(0x7D)
        case .array(let items):
            out.append(0x5B)
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(0x2C) }
                item.write(to: &out)
            }
            out.append(0x5D)
        case .string(let s):
            JSONLine.appendString(s, to: &out)
        case .number(let n):
            out.append(contentsOf: n.text.utf8)
        case .bool(let b):
            out.append(contentsOf: (b ? "true" : "false").utf8)
        case .null:
            out.append(contentsOf: "null".utf8)
        }
    }
}

extension JSONNumber {
    /// An integer, written in decimal.
    public init(_ value: Int) { self.init(validated: String(value)) }
}
