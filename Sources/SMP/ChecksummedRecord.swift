import BluetoothCore

/// The envelope of the head unit's checksummed state records (bonds, and
/// the GATT client state kept beside each bond), little-endian:
///
///     magic 4 | version u8 | payload length u16 | payload | CRC-32 u32
///
/// The CRC covers everything before it: it catches torn and worn files,
/// it protects nothing against an attacker.
public enum ChecksummedRecord {
    public static func encode(magic: [UInt8], version: UInt8, payload: [UInt8]) -> [UInt8] {
        var out = ByteWriter(capacity: payload.count + magic.count + 7)
        out.append(magic)
        out.u8(version)
        out.u16(UInt16(payload.count))
        out.append(payload)
        out.u32(CRC32.checksum(out.bytes))
        return out.bytes
    }

    /// The payload of a record with that magic and version, or what is wrong.
    public static func payload(of bytes: [UInt8], magic: [UInt8], version expected: UInt8) throws(BondDecodingError) -> ArraySlice<UInt8> {
        let headerCount = magic.count + 3
        guard bytes.count >= headerCount + 4 else { throw .truncated }
        guard Array(bytes[0..<magic.count]) == magic else { throw .badMagic }
        var header = ByteReader(bytes[magic.count..<headerCount])
        guard let version = header.u8(), let length = header.u16() else { throw .truncated }
        guard version == expected else { throw .unsupportedVersion(version) }
        let total = headerCount + Int(length) + 4
        guard bytes.count >= total else { throw .truncated }
        guard bytes.count == total else { throw .lengthMismatch }
        var trailer = ByteReader(bytes[(total - 4)...])
        guard let stored = trailer.u32() else { throw .truncated }
        guard CRC32.checksum(bytes[0..<(total - 4)]) == stored else { throw .checksumMismatch }
        return bytes[headerCount..<(total - 4)]
    }
}
