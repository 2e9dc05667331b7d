import BluetoothCore
import GATT
import SMP

/// The versioned byte form of a `BondedClientState` (the `gatt-…` state
/// file beside each bond): a `ChecksummedRecord` with magic "NNGC".
/// Version 1 payload, little-endian:
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
        return ChecksummedRecord.encode(magic: BondedClientState.magic, version: BondedClientState.encodingVersion, payload: payload.bytes)
    }

    public static func decode(_ bytes: [UInt8]) throws(BondDecodingError) -> BondedClientState {
        var r = ByteReader(try ChecksummedRecord.payload(of: bytes, magic: magic, version: encodingVersion))
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
