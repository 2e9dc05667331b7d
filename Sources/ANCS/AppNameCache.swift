import BluetoothCore

/// Display names of apps (GetAppAttributes DisplayName), so each app is asked
/// about once, not once per notification. The owner persists it with
/// `encoded()` and restores it with `init(decoding:)`.
///
/// Encoding, version 1 (all little-endian):
/// `01`, count (u16), then per entry: identifier length (u8), identifier
/// (UTF-8), name length (u8), name (UTF-8). Entries are oldest first.
public struct AppNameCache: Equatable {
    public static let formatVersion: UInt8 = 1
    /// Names and identifiers longer than this are cut (the encoding uses one length byte).
    public static let maximumFieldLength = 255

    /// The most entries kept; the oldest goes first when full.
    public let capacity: Int
    private var names: [AppIdentifier: String] = [:]
    /// Insertion order, oldest first, for eviction and a stable encoding.
    private var order: [AppIdentifier] = []

    public init(capacity: Int = 128) {
        self.capacity = max(1, capacity)
    }

    public var count: Int { order.count }
    public var isEmpty: Bool { order.isEmpty }

    public func name(for app: AppIdentifier) -> String? { names[app] }

    /// Every entry, oldest first.
    public var entries: [(app: AppIdentifier, name: String)] {
        order.compactMap { app in names[app].map { (app: app, name: $0) } }
    }

    /// Records a name; returns true when the cache changed.
    @discardableResult
    public mutating func insert(_ name: String, for app: AppIdentifier) -> Bool {
        let app = AppIdentifier(clampUTF8(app.value, maxBytes: AppNameCache.maximumFieldLength))
        let name = clampUTF8(name, maxBytes: AppNameCache.maximumFieldLength)
        if let existing = names[app] {
            if existing == name { return false }
            names[app] = name
            return true
        }
        if order.count >= capacity {
            let oldest = order.removeFirst()
            names[oldest] = nil
        }
        names[app] = name
        order.append(app)
        return true
    }

    public mutating func removeAll() {
        names.removeAll()
        order.removeAll()
    }

    public func encoded() -> [UInt8] {
        var writer = ByteWriter(capacity: 3 + order.count * 40)
        writer.u8(AppNameCache.formatVersion)
        let list = entries
        writer.u16(UInt16(list.count))
        for entry in list {
            let id = Array(entry.app.value.utf8)
            let name = Array(entry.name.utf8)
            writer.u8(UInt8(id.count))
            writer.append(id)
            writer.u8(UInt8(name.count))
            writer.append(name)
        }
        return writer.bytes
    }

    public enum DecodeError: Error, Equatable {
        case unknownVersion(UInt8)
        case truncated
        case trailingBytes(Int)
    }

    /// Restores a cache. A file from a newer version or a damaged one throws;
    /// the owner then starts with an empty cache (the names are re-fetched).
    public init(decoding bytes: [UInt8], capacity: Int = 128) throws(DecodeError) {
        self.init(capacity: capacity)
        var reader = ByteReader(bytes)
        guard let version = reader.u8() else { throw .truncated }
        guard version == AppNameCache.formatVersion else { throw .unknownVersion(version) }
        guard let count = reader.u16() else { throw .truncated }
        for _ in 0..<Int(count) {
            guard let idLength = reader.u8(), let id = reader.bytes(Int(idLength)),
                  let nameLength = reader.u8(), let name = reader.bytes(Int(nameLength)) else { throw .truncated }
            insert(String(decoding: name, as: UTF8.self), for: AppIdentifier(String(decoding: id, as: UTF8.self)))
        }
        guard reader.isAtEnd else { throw .trailingBytes(reader.remainingCount) }
    }

    public static func == (a: AppNameCache, b: AppNameCache) -> Bool {
        a.order == b.order && a.names == b.names
    }
}

/// The longest prefix of `text` that fits in `maxBytes` of UTF-8 without
/// cutting a character in half.
public func clampUTF8(_ text: String, maxBytes: Int) -> String {
    // Most texts fit: counted before they are copied.
    guard text.utf8.count > maxBytes else { return text }
    let utf8 = Array(text.utf8)
    var end = max(0, maxBytes)
    // Back up over continuation bytes (10xxxxxx) to a character start.
    while end > 0 && utf8[end] & 0xC0 == 0x80 { end -= 1 }
    return String(decoding: utf8[0..<end], as: UTF8.self)
}
