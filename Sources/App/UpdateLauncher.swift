import CLinux
import Platform

/// `update PATH` on the console: starts the image's installer, which runs
/// beside the head unit (its own process at idle I/O priority, so the
/// screen and the phone carry on), prints its progress on the console and
/// reboots into the new slot on trial once the bundle is verified and
/// written (docs/UPDATES.md).
enum UpdateLauncher {
    static let installer = "/usr/libexec/headunit/update"

    /// What the console answers at once, and whether the installer runs.
    /// `removeWhenDone`: the bundle is GhostDrop's copy in the state
    /// directory, which the installer deletes once it has been installed or
    /// refused (`--remove`).
    static func start(bundle path: String, removeWhenDone: Bool = false) -> (line: String, started: Bool) {
        guard access(installer, X_OK) == 0 else {
            return ("update: this system has no installer (\(installer)): updates are for the head unit's image", false)
        }
        guard access(path, R_OK) == 0 else { return ("update: cannot read \(path)", false) }
        let started = removeWhenDone ? nn_spawn_detached(installer, "--remove", path) : nn_spawn_detached(installer, path, nil)
        guard started == 0 else { return ("update: cannot start the installer", false) }
        return ("update: installing \(path) into the inactive slot; the head unit keeps running, progress follows", true)
    }

    /// The image's version and slot for `status`, on the image only
    /// (/etc/headunit/release; /run/headunit/slot, which the trial watcher
    /// writes: `trial A` or `good B`). Nil elsewhere.
    static func imageStatus() -> String? {
        guard let release = try? ReadFile.prefix("/etc/headunit/release", limit: 512) else { return nil }
        var version = "?"
        for line in String(decoding: release, as: UTF8.self).split(separator: "\n") where line.hasPrefix("HEADUNIT_IMAGE_VERSION=") {
            version = String(line.dropFirst("HEADUNIT_IMAGE_VERSION=".count))
        }
        let slot = (try? ReadFile.prefix("/run/headunit/slot", limit: 64)).map {
            String(decoding: $0.filter { $0 != 0x0A }, as: UTF8.self)
        }
        return "image: \(version)" + (slot.map { ", slot \($0)" } ?? "")
    }
}
