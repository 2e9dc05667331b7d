import ANCS
import BluetoothCore
import Platform

/// App display names learned from the phone (GetAppAttributes) under
/// `--state DIR`, kept across sessions and restarts so each app is asked
/// about once. A damaged file costs the names, never the session.
struct AppNameStore {
    let files: any StateStorage

    static let file = "app-names"

    /// The stored cache; nil when there is none, a DecodeError when the file is damaged.
    func stored() throws(AppNameCache.DecodeError) -> AppNameCache? {
        guard let bytes = files.read(AppNameStore.file) else { return nil }
        return try AppNameCache(decoding: bytes)
    }

    /// What a session starts with: the stored names, or none.
    func load() -> AppNameCache {
        do { return try stored() ?? AppNameCache() } catch {
            Log.warning("ancs", "\(files.path(AppNameStore.file)) is damaged (\(error)); starting empty")
            return AppNameCache()
        }
    }

    func save(_ cache: AppNameCache) {
        do { try files.write(AppNameStore.file, cache.encoded()) } catch {
            Log.error("ancs", "cannot keep app names: \(error)")
        }
    }
}
