import BluetoothCore
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
        if let bytes = files.read(PairingStore.clientNameFile), let name = PairingStore.parseName(bytes) {
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
        guard let name = PairingStore.parseName(bytes) else {
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

    /// One line of 1..32 bytes of UTF-8, without control characters.
    static func parseName(_ bytes: [UInt8]) -> String? {
        var line = bytes
        if line.last == 0x0A { line.removeLast() }
        guard line.count >= 1, line.count <= 32, !line.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        let text = String(decoding: line, as: UTF8.self)
        guard Array(text.utf8) == line else { return nil } // invalid UTF-8
        return text
    }
}
