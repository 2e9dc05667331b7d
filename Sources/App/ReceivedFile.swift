import BluetoothCore
import CLinux
import Config
import HeadUnitCore
import Platform
import Update

/// A file GhostDrop brought, whole and its SHA-256 checked, kept as
/// `received-NAME` in the state directory: what the core accepted it as
/// (`GhostDropFileKind`) decides where it goes (docs/GHOSTDROP.md, "What
/// the head unit does with a file").
///
/// - an update bundle: its header checked once more, then the image's
///   installer, as `update PATH` on the console starts it, told to delete
///   the bundle once done (the state partition is small);
/// - a `headunit.conf`: parsed with the Config module; one diagnostic and it
///   is refused (kept as `received-headunit.conf`, the next one replaces it),
///   otherwise the image's configuration installer puts it on the boot
///   partition and restarts the head unit, which reads it at start.
struct ReceivedFile {
    static let configurationInstaller = "/usr/libexec/headunit/install-conf"

    let path: String
    let name: String

    /// What the console shows; also logged.
    func handOn() -> String {
        let line: String
        switch GhostDropFileKind(filename: name) {
        case .updateBundle?: line = installBundle()
        case .configuration?: line = applyConfiguration()
        case nil: line = "ghostdrop: \(path) is neither an update bundle nor headunit.conf; left as it is"
        }
        Log.info("ghostdrop", line)
        return line
    }

    private func installBundle() -> String {
        // The core checked the header as it arrived; the file on disk is
        // what the installer reads, so it is checked again here.
        let head = (try? ReadFile.prefix(path, limit: BundleHeader.size)) ?? []
        if let refusal = GhostDropFileKind.bundleHeaderRefusal(head) {
            unlink(path)
            return "update: refused \(name) from the phone: \(refusal.reason); deleted"
        }
        return UpdateLauncher.start(bundle: path, removeWhenDone: true)
    }

    private func applyConfiguration() -> String {
        let limit = Int(GhostDropFileKind.maxConfigurationBytes)
        guard let bytes = try? ReadFile.prefix(path, limit: limit + 1), bytes.count <= limit else {
            return "config: cannot read \(path), or it is larger than \(limit) bytes; not applied"
        }
        let result = HeadUnitConfiguration.parse(bytes, file: "headunit.conf from the phone")
        if let first = result.diagnostics.first {
            let more = result.diagnostics.count > 1 ? " (and \(result.diagnostics.count - 1) more)" : ""
            return "config: refused \(first)\(more); not applied, the configuration in use stays"
        }
        guard access(ReceivedFile.configurationInstaller, X_OK) == 0 else {
            return "config: \(path) is valid; this system has no configuration installer (\(ReceivedFile.configurationInstaller)): not applied"
        }
        guard nn_spawn_detached(ReceivedFile.configurationInstaller, path, nil) == 0 else {
            return "config: cannot start \(ReceivedFile.configurationInstaller)"
        }
        return "config: \(path) is valid; installing it and restarting the head unit to apply it"
    }
}
