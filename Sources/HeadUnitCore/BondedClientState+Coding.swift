import BluetoothCore
import GATT
import SMP

/// The versioned byte form of a `BondedClientState` (the `gatt-…` state
/// file beside each bond), little-endian:
///
///     magic "NNGC" | version u8 | payload length u16 | payload | CRC-32 u32
///
/// The CRC covers everything before it. Version 1 payload:
///
///     database hash 16 | count u8 | count × (characteristic UUID 16 | CCCD u16)
///
/// UUIDs in their 128-bit form, least significant octet first. A reader
/// refuses versions it does not know (the client then subscribes again;
/// nothing else is lost).
extension BondedClientState {
    static let magic: [UInt8] = [0x4E, 0x4E, 0x47, 0x43]  // "NNGC"
    public static let encodingVersion: UInt8 = 1

    public func encoded() -> [UInt8] {
        var payload = ByteWriter(capacity: 17 + configurations.count * 18)
        var hash = Array(databaseHash.prefix(16))
        hash += [UInt8](repeating: 0, count: 16 - hash.count)
        payload.append(hash)
        let kept = configurations.prefix(255)
        payload.u8(UInt8(kept.count))
        for entry in kept {
            payload.append(entry.characteristic.fullLittleEndian)
            payload.u16(entry.value.rawValue)
        }
        var out = ByteWriter(capacity: payload.bytes.count + 11)
        out.append(BondedClientState.magic)
        out.u8(BondedClientState.encodingVersion)
        out.u16(UInt16(payload.bytes.count))
        out.append(payload.bytes)
        out.u32(CRC32.checksum(out.bytes))
        return out.bytes
    }

    public static func decode(_ bytes: [UInt8]) throws(BondDecodingError) -> BondedClientState {
        let headerCount = magic.count + 3
        guard bytes.count >= headerCount + 4 else { throw .truncated }
        guard Array(bytes[0..<magic.count]) == magic else { throw .badMagic }
        var header = ByteReader(bytes[magic.count..<headerCount])
        guard let version = header.u8(), let length = header.u16() else { throw .truncated }
        guard version == encodingVersion else { throw .unsupportedVersion(version) }
        let total = headerCount + Int(length) + 4
        guard bytes.count >= total else { throw .truncated }
        guard bytes.count == total else { throw .lengthMismatch }
        var trailer = ByteReader(bytes[(total - 4)...])
        guard let stored = trailer.u32() else { throw .truncated }
        guard CRC32.checksum(bytes[0..<(total - 4)]) == stored else { throw .checksumMismatch }
        var r = ByteReader(bytes[headerCount..<(total - 4)])
        guard let hash = r.bytes(16), let count = r.u8() else { throw .lengthMismatch }
        var configurations: [StoredClientConfiguration] = []
        for _ in 0..<count {
            guard let uuidBytes = r.bytes(16), let value = r.u16() else { throw .lengthMismatch }
            guard let uuid = BluetoothUUID(littleEndian: uuidBytes) else { throw .invalidField("characteristic UUID") }
            configurations.append(StoredClientConfiguration(characteristic: uuid, value: ClientConfiguration(rawValue: value)))
        }
        guard r.isAtEnd else { throw .lengthMismatch }
        return BondedClientState(configurations: configurations, databaseHash: Array(hash))
    }
}
