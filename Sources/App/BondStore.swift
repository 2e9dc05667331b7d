import BluetoothCore
import HCI
import Platform
import SMP

/// Bonds under `--state DIR`, one file per phone (`bond-<server name in
/// hex>`), each a versioned, checksummed `BondRecord`. A damaged file is
/// reported and skipped: it never takes the other bonds or the firmware with it.
struct BondStore {
    let files: any StateStorage
    /// Where our IRK and identity address come from when they are made.
    var random: RandomSource = .system

    static let prefix = "bond-"
    static let localIRKFile = "local-irk"
    static let identityAddressFile = "identity-address"
    /// Beside each bond, the GATT server's state for that client (its
    /// CCCDs): `gatt-<server name in hex>`, a `BondedClientState`.
    static let clientStatePrefix = "gatt-"

    private func fileName(_ server: String) -> String { BondStore.prefix + hexString(Array(server.utf8)) }
    private func clientStateFileName(_ server: String) -> String { BondStore.clientStatePrefix + hexString(Array(server.utf8)) }

    /// Every client state file, by bond key, as bytes (the core decodes
    /// them and drops those without a bond).
    func clientStates() -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        for name in files.list() where name.hasPrefix(BondStore.clientStatePrefix) {
            guard let serverBytes = bytesFromHex(String(name.dropFirst(BondStore.clientStatePrefix.count))),
                  let bytes = files.read(name) else { continue }
            out[String(decoding: serverBytes, as: UTF8.self)] = bytes
        }
        return out
    }

    func saveClientState(_ bytes: [UInt8], for server: String) {
        do { try files.write(clientStateFileName(server), bytes) } catch {
            Log.error("bonds", "cannot store the GATT client state of \(server): \(error)")
        }
    }

    /// Every readable bond with the SERVER NAME it belongs to.
    func all() -> [(server: String, bond: BondRecord)] {
        var out: [(server: String, bond: BondRecord)] = []
        for name in files.list() where name.hasPrefix(BondStore.prefix) {
            guard let serverBytes = bytesFromHex(String(name.dropFirst(BondStore.prefix.count))),
                  let bytes = files.read(name) else {
                Log.warning("bonds", "\(files.path(name)) cannot be read; skipped")
                continue
            }
            do {
                out.append((String(decoding: serverBytes, as: UTF8.self), try BondRecord.decode(bytes)))
            } catch {
                Log.warning("bonds", "\(files.path(name)) is damaged (\(error)); skipped")
            }
        }
        return out
    }

    /// Every readable bond, by SERVER NAME: what the core starts with.
    func byServer() -> [String: BondRecord] {
        var out: [String: BondRecord] = [:]
        for (server, bond) in all() { out[server] = bond }
        return out
    }

    func bond(for server: String) -> BondRecord? {
        all().first { $0.server == server }?.bond
    }

    func save(_ bond: BondRecord, for server: String) {
        do { try files.write(fileName(server), bond.encoded()) } catch {
            Log.error("bonds", "cannot store the bond with \(server): \(error)")
        }
    }

    /// Deletes the bond and the GATT client state kept with it.
    func delete(for server: String) {
        do { try files.remove(fileName(server)) } catch {
            Log.error("bonds", "cannot delete the bond with \(server): \(error)")
        }
        do { try files.remove(clientStateFileName(server)) } catch {
            Log.error("bonds", "cannot delete the GATT client state of \(server): \(error)")
        }
    }

    /// The head unit's own IRK, made once: the phone uses it to recognise us
    /// if we ever use private addresses.
    func localIRK() -> IdentityResolvingKey? {
        if let bytes = files.read(BondStore.localIRKFile), let irk = IdentityResolvingKey(bytes: bytes), !irk.isAllZero {
            return irk
        }
        guard let irk = try? IdentityResolvingKey.generate(random: random) else {
            Log.error("bonds", "cannot generate an IRK")
            return nil
        }
        do { try files.write(BondStore.localIRKFile, irk.bytes) } catch {
            Log.error("bonds", "cannot store our IRK: \(error)")
        }
        return irk
    }

    /// The head unit's static random identity address as an accessory,
    /// made once and kept as text ("C4:12:34:56:78:9A"): iOS knows a bonded
    /// accessory by it, so it must not change across boots. A damaged file
    /// is replaced (the phone then pairs again; nothing else is lost).
    func identityAddress() -> StaticRandomAddress? {
        if let bytes = files.read(BondStore.identityAddressFile) {
            let text = String(decoding: bytes.filter { $0 != 0x0A }, as: UTF8.self)
            if let address = StaticRandomAddress(text: text) { return address }
            Log.warning("bonds", "\(files.path(BondStore.identityAddressFile)) holds no static random address; making a new one")
        }
        guard let bytes = random.generate(6), let address = StaticRandomAddress(randomBytes: bytes) else {
            Log.error("bonds", "cannot make an identity address; not advertising")
            return nil
        }
        do { try files.write(BondStore.identityAddressFile, Array((address.address.text + "\n").utf8)) } catch {
            Log.error("bonds", "cannot store our identity address: \(error)")
        }
        Log.info("bonds", "identity address \(address) made")
        return address
    }
}
