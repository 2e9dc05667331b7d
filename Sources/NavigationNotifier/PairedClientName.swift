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
}
