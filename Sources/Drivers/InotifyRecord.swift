/// One `struct inotify_event` read from an inotify descriptor: watch
/// descriptor, mask, cookie, name length, then the NUL-padded name.
/// A read returns whole records only; a short or inconsistent tail ends
/// the parse instead of trapping.
public struct InotifyRecord: Equatable {
    public var watch: Int32
    public var mask: UInt32
    /// The file's name within the watched directory ("" for the directory).
    public var name: String

    public static let headerSize = 16

    public init(watch: Int32, mask: UInt32, name: String) {
        self.watch = watch
        self.mask = mask
        self.name = name
    }

    public static func parse(_ bytes: [UInt8]) -> [InotifyRecord] {
        var records: [InotifyRecord] = []
        var offset = 0
        func u32(_ at: Int) -> UInt32 {
            UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
        }
        while bytes.count - offset >= headerSize {
            let length = Int(u32(offset + 12))
            guard length <= bytes.count - offset - headerSize else { break }
            let nameBytes = bytes[(offset + headerSize)..<(offset + headerSize + length)]
            let name = String(decoding: nameBytes.prefix(while: { $0 != 0 }), as: UTF8.self)
            records.append(InotifyRecord(watch: Int32(bitPattern: u32(offset)), mask: u32(offset + 4), name: name))
            offset += headerSize + length
        }
        return records
    }
}
