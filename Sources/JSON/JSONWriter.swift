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

extension JSONNumber {
    /// An unsigned 64-bit integer (GhostDrop's sequences and NACK bitmaps
    /// reach past Int.max), written in decimal.
    public init(_ value: UInt64) { self.init(validated: String(value)) }

    /// The value as an unsigned 64-bit integer, when it is written as one
    /// (digits only, no sign, fraction or exponent) and fits.
    public var uint64: UInt64? {
        guard !text.isEmpty else { return nil }
        var value: UInt64 = 0
        for byte in text.utf8 {
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(byte - 0x30))
            if o1 || o2 { return nil }
            value = sum
        }
        return value
    }
}
