import BluetoothCore
import NavigationNotifier
import Platform

/// The pairing routine's persistent facts under `--state DIR`: our CLIENT
/// NAME (created once, never changed) and the remembered SERVER NAME. Each
/// lives in its own file so damage to one never costs the other.
struct PairingStore {
    let files: any StateStorage

    static let clientNameFile = "client-name"
    static let serverFile = "server-name"

    /// Our CLIENT NAME, e.g. `HU-3F9A21`, made from kernel randomness the
    /// first time and read back ever after.
    func clientName() -> String {
        if let bytes = files.read(PairingStore.clientNameFile), let name = PairedClientName.parse(line: bytes) {
            return name
        }
        let name = "HU-" + hexString(SystemRandom.bytes(3)).uppercased()
        do {
            try files.write(PairingStore.clientNameFile, Array((name + "\n").utf8))
            Log.info("state", "new client name \(name)")
        } catch {
            Log.error("state", "cannot store the client name: \(error); using \(name) for now")
        }
        return name
    }

    func rememberedServer() -> String? {
        guard let bytes = files.read(PairingStore.serverFile) else { return nil }
        guard let name = PairedClientName.parse(line: bytes) else {
            Log.warning("state", "\(files.path(PairingStore.serverFile)) is damaged; no server remembered")
            return nil
        }
        return name
    }

    func remember(_ server: String) {
        do { try files.write(PairingStore.serverFile, Array((server + "\n").utf8)) } catch {
            Log.error("state", "cannot remember \(server): \(error)")
        }
    }

    func forgetServer() {
        do { try files.remove(PairingStore.serverFile) } catch {
            Log.error("state", "cannot forget the server: \(error)")
        }
    }
}
