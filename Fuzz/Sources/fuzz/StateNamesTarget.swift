import ANCS
import BluetoothCore
import NavigationNotifier

/// The small state files' contents: the CLIENT NAME and remembered SERVER
/// NAME lines, and the app-name cache.
enum StateNamesTarget {
    static let target = FuzzTarget(name: "state-names", run: run, seeds: seeds)

    static func run(_ data: [UInt8]) {
        if let name = PairedClientName.parse(line: data) {
            let line = data.last == 0x0A ? Array(data.dropLast()) : data
            invariant(Array(name.utf8) == line, "the name is not the file's line")
            invariant((1...32).contains(line.count) && !line.contains { $0 < 0x20 || $0 == 0x7F }, "a bad name accepted")
        }
        if let cache = try? AppNameCache(decoding: data, capacity: 8) {
            invariant(cache.count <= 8, "the cache holds more than its capacity")
            let again = try? AppNameCache(decoding: cache.encoded(), capacity: 8)
            invariant(again == cache, "the app-name cache does not survive a save and load")
        }
    }

    static func seeds() -> [(String, [UInt8])] {
        var cache = AppNameCache()
        cache.insert("Maps", for: AppIdentifier("com.apple.Maps"))
        cache.insert("Google Maps", for: AppIdentifier("com.google.Maps"))
        return [
            ("client-name", Array("HU-3F9A21\n".utf8)),
            ("server-name", Array("Anna-iPhone-7F3A".utf8)),
            ("utf8-name", Array("Zoë\n".utf8)),
            ("control-character", Array("Anna\tiPhone\n".utf8)),
            ("app-names", cache.encoded()),
            ("app-names-trailing", cache.encoded() + [0]),
        ]
    }
}
