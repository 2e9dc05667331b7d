private let hexDigits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]

/// Hex text for log lines and test vectors ("0a1b2c").
public func hexString<C: Collection>(_ bytes: C, separator: String = "") -> String where C.Element == UInt8 {
    var text = ""
    var first = true
    for byte in bytes {
        if !first { text += separator }
        first = false
        text.append(hexDigits[Int(byte >> 4)])
        text.append(hexDigits[Int(byte & 0x0F)])
    }
    return text
}

/// Fixed-width hex of an integer, e.g. `hex(0x0c03, digits: 4)` is "0c03".
public func hex<T: BinaryInteger>(_ value: T, digits: Int) -> String {
    var text = ""
    var v = UInt64(truncatingIfNeeded: value)
    for _ in 0..<digits {
        text.insert(hexDigits[Int(v & 0xF)], at: text.startIndex)
        v >>= 4
    }
    return text
}

/// Parses hex text ("0a1b", spaces, colons and dashes allowed); nil on any
/// other character or an odd number of digits.
public func bytesFromHex(_ text: String) -> [UInt8]? {
    var out: [UInt8] = []
    var high: UInt8? = nil
    for scalar in text.unicodeScalars {
        let nibble: UInt8
        switch scalar.value {
        case 0x30...0x39: nibble = UInt8(scalar.value - 0x30)
        case 0x41...0x46: nibble = UInt8(scalar.value - 0x41 + 10)
        case 0x61...0x66: nibble = UInt8(scalar.value - 0x61 + 10)
        case 0x20, 0x3A, 0x2D: continue
        default: return nil
        }
        if let h = high {
            out.append(h << 4 | nibble)
            high = nil
        } else {
            high = nibble
        }
    }
    return high == nil ? out : nil
}
