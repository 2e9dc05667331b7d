import BluetoothCore

/// Why bytes could not be read as an ATT PDU. A server answers these with
/// Invalid PDU (or Request Not Supported for an unknown request); a client
/// fails its pending request.
public enum ATTDecodeError: Error, Hashable, CustomStringConvertible {
    /// Zero bytes: not even an opcode.
    case empty
    /// An opcode this implementation does not know.
    case unknownOpcode(AttributeOpcode)
    /// Too short, too long, or a list whose length is not a whole number of entries.
    case invalidLength(AttributeOpcode)
    /// A field that may not hold the value it holds (Find Information format,
    /// a 32-bit UUID where only 16 or 128 bits are allowed, a zero entry length).
    case invalidFormat(AttributeOpcode)

    public var opcode: AttributeOpcode? {
        switch self {
        case .empty: return nil
        case .unknownOpcode(let o), .invalidLength(let o), .invalidFormat(let o): return o
        }
    }

    public var description: String {
        switch self {
        case .empty: return "empty ATT PDU"
        case .unknownOpcode(let o): return "unknown ATT opcode 0x" + hex(o.rawValue, digits: 2)
        case .invalidLength(let o): return o.name + " with an invalid length"
        case .invalidFormat(let o): return o.name + " with an invalid field"
        }
    }
}
