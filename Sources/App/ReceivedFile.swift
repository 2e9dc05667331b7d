import BluetoothCore
import CLinux
import Config
import HeadUnitCore
import Platform
import ScreenValues
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

    /// What became of it: the console's line (also logged) and the
    /// outcome the screen's transfer band shows for a few seconds.
    struct HandedOn {
        var line: String
        var outcome: TransferStatus
    }

    func handOn() -> HandedOn {
        let handed: HandedOn
        switch GhostDropFileKind(filename: name) {
        case .updateBundle?: handed = installBundle()
        case .configuration?: handed = applyConfiguration()
        case nil:
            handed = HandedOn(line: "ghostdrop: \(path) is neither an update bundle nor headunit.conf; left as it is",
                              outcome: .received)
        }
        Log.info("ghostdrop", handed.line)
        return handed
    }

    private func installBundle() -> HandedOn {
        // The core checked the header as it arrived; the file on disk is
        // what the installer reads, so it is checked again here.
        let head = (try? ReadFile.prefix(path, limit: BundleHeader.size)) ?? []
        if let refusal = GhostDropFileKind.bundleHeaderRefusal(head) {
            unlink(path)
            return HandedOn(line: "update: refused \(name) from the phone: \(refusal.reason); deleted",
                            outcome: .refused(refusal.reason))
        }
        let launch = UpdateLauncher.start(bundle: path, removeWhenDone: true)
        // Off the image there is no installer: the file stays, received.
        return HandedOn(line: launch.line, outcome: launch.started ? .installing : .received)
    }

    private func applyConfiguration() -> HandedOn {
        let limit = Int(GhostDropFileKind.maxConfigurationBytes)
        guard let bytes = try? ReadFile.prefix(path, limit: limit + 1), bytes.count <= limit else {
            return HandedOn(line: "config: cannot read \(path), or it is larger than \(limit) bytes; not applied",
                            outcome: .refused("larger than \(limit) bytes"))
        }
        let result = HeadUnitConfiguration.parse(bytes, file: "headunit.conf from the phone")
        if let first = result.diagnostics.first {
            let more = result.diagnostics.count > 1 ? " (and \(result.diagnostics.count - 1) more)" : ""
            return HandedOn(line: "config: refused \(first)\(more); not applied, the configuration in use stays",
                            outcome: .refused("\(first)"))
        }
        guard access(ReceivedFile.configurationInstaller, X_OK) == 0 else {
            return HandedOn(line: "config: \(path) is valid; this system has no configuration installer (\(ReceivedFile.configurationInstaller)): not applied",
                            outcome: .received)
        }
        guard nn_spawn_detached(ReceivedFile.configurationInstaller, path, nil) == 0 else {
            return HandedOn(line: "config: cannot start \(ReceivedFile.configurationInstaller)",
                            outcome: .refused("cannot start the configuration installer"))
        }
        return HandedOn(line: "config: \(path) is valid; installing it and restarting the head unit to apply it",
                        outcome: .installed)
    }
}
