import Foundation

/// A file of published test vectors under Vectors/: `#` lines name the
/// source, blank lines separate cases, every other line is `name = value`.
struct VectorFile {
    let cases: [[String: String]]

    /// The whole text of a file under Vectors/.
    static func text(_ name: String) throws -> String {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors/" + name)
        return try String(contentsOf: url, encoding: .utf8)
    }

    init(_ name: String) throws {
        let text = try VectorFile.text(name)
        var cases: [[String: String]] = []
        var current: [String: String] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("#") { continue }
            if line.trimmingCharacters(in: .whitespaces).isEmpty {
                if !current.isEmpty { cases.append(current) }
                current = [:]
                continue
            }
            guard let equals = line.firstIndex(of: "=") else { continue }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces)
            current[key] = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
        }
        if !current.isEmpty { cases.append(current) }
        self.cases = cases
    }
}

extension Dictionary where Key == String, Value == String {
    /// The named field as bytes (hex in the file).
    func bytes(_ name: String) -> [UInt8] {
        guard let hex = self[name] else { return [] }
        return hexBytes(hex)
    }
}

func hexBytes(_ hex: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var high: UInt8? = nil
    for character in hex.utf8 {
        let nibble: UInt8
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = character - UInt8(ascii: "A") + 10
        default: continue
        }
        if let h = high {
            bytes.append(h << 4 | nibble)
            high = nil
        } else {
            high = nibble
        }
    }
    return bytes
}

func hexString(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
}
