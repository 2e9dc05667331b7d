/// The values of the PAIRED CLIENT NAME characteristic.
public enum PairedClientName {
    /// The phone is paired with no head unit.
    public static let unpaired = "UNPAIRED"
    /// Names are 1..32 bytes of UTF-8.
    public static let maxLength = 32

    public static func isValid(_ name: String) -> Bool {
        let count = name.utf8.count
        return count >= 1 && count <= maxLength
    }

    /// A name as the state files keep it (ours, the remembered server's):
    /// one line of 1..32 bytes of UTF-8 without control characters, the
    /// newline optional; nil for anything else.
    public static func parse(line bytes: [UInt8]) -> String? {
        var line = bytes
        if line.last == 0x0A { line.removeLast() }
        guard line.count >= 1, line.count <= maxLength, !line.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        let text = String(decoding: line, as: UTF8.self)
        guard Array(text.utf8) == line else { return nil } // invalid UTF-8
        return text
    }
}
