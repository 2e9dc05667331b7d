import BluetoothCore

/// Why stored bond bytes were refused. Each names the damage so the store
/// can report the file and carry on with the other bonds.
public enum BondDecodingError: Error, Equatable, CustomStringConvertible {
    case truncated
    case badMagic
    case unsupportedVersion(UInt8)
    case lengthMismatch
    case checksumMismatch
    case invalidField(String)

    public var description: String {
        switch self {
        case .truncated: return "truncated"
        case .badMagic: return "not a bond record"
        case .unsupportedVersion(let v): return "unsupported version \(v)"
        case .lengthMismatch: return "length does not match"
        case .checksumMismatch: return "checksum mismatch"
        case .invalidField(let name): return "invalid " + name
        }
    }
}

/// The versioned byte form of a `BondRecord`, little-endian:
///
///     magic "NNBD" | version u8 | payload length u16 | payload | CRC-32 u32
///
/// The CRC covers everything before it. Version 1 payload:
///
///     flags u8 (bit0 authenticated, bit1 secure connections,
///               bit2 peer IRK present, bit3 local IRK present,
///               bit4 paired as responder; records written before it
///               existed were all paired as initiator)
///     peer identity address type u8 (0 public, 1 random) | address 6
///     LTK 16 | EDIV u16 | Rand u64 | key size u8
///     [peer IRK 16] [local IRK 16]
extension BondRecord {
    static let magic: [UInt8] = [0x4E, 0x4E, 0x42, 0x44]  // "NNBD"
    public static let encodingVersion: UInt8 = 1

    private enum Flag {
        static let authenticated: UInt8 = 0x01
        static let secureConnections: UInt8 = 0x02
        static let peerIRK: UInt8 = 0x04
        static let localIRK: UInt8 = 0x08
        static let responder: UInt8 = 0x10
    }

    public func encoded() -> [UInt8] {
        var payload = ByteWriter(capacity: 80)
        var flags: UInt8 = 0
        if authenticated { flags |= Flag.authenticated }
        if secureConnections { flags |= Flag.secureConnections }
        if peerIRK != nil { flags |= Flag.peerIRK }
        if localIRK != nil { flags |= Flag.localIRK }
        if localRole == .responder { flags |= Flag.responder }
        payload.u8(flags)
        payload.u8(peerIdentityAddress.isRandom ? 1 : 0)
        payload.append(peerIdentityAddress.littleEndianBytes)
        payload.append(longTermKey.bytes)
        payload.u16(ediv)
        payload.u64(rand)
        payload.u8(keySize)
        if let irk = peerIRK { payload.append(irk.bytes) }
        if let irk = localIRK { payload.append(irk.bytes) }

        return ChecksummedRecord.encode(magic: BondRecord.magic, version: BondRecord.encodingVersion, payload: payload.bytes)
    }

    public static func decode(_ bytes: [UInt8]) throws(BondDecodingError) -> BondRecord {
        try decodePayload(ByteReader(try ChecksummedRecord.payload(of: bytes, magic: magic, version: encodingVersion)))
    }

    private static func decodePayload(_ reader: ByteReader) throws(BondDecodingError) -> BondRecord {
        var r = reader
        guard let flags = r.u8(), let addressType = r.u8(), let addressBytes = r.bytes(6),
              let ltkBytes = r.bytes(16), let ediv = r.u16(), let rand = r.u64(), let keySize = r.u8() else {
            throw .lengthMismatch
        }
        guard flags & 0xE0 == 0 else { throw .invalidField("flags") }
        guard addressType <= 1,
              let address = BluetoothAddress(littleEndian: addressBytes, kind: addressType == 1 ? .random : .public) else {
            throw .invalidField("address type")
        }
        guard let ltk = LongTermKey(bytes: ltkBytes), !ltk.isAllZero else { throw .invalidField("LTK") }
        guard (7...16).contains(keySize) else { throw .invalidField("key size") }
        var peerIRK: IdentityResolvingKey? = nil
        if flags & Flag.peerIRK != 0 {
            guard let b = r.bytes(16) else { throw .lengthMismatch }
            peerIRK = IdentityResolvingKey(bytes: b)
        }
        var localIRK: IdentityResolvingKey? = nil
        if flags & Flag.localIRK != 0 {
            guard let b = r.bytes(16) else { throw .lengthMismatch }
            localIRK = IdentityResolvingKey(bytes: b)
        }
        guard r.isAtEnd else { throw .lengthMismatch }
        return BondRecord(peerIdentityAddress: address, peerIRK: peerIRK, longTermKey: ltk, ediv: ediv, rand: rand,
                          keySize: keySize, authenticated: flags & Flag.authenticated != 0,
                          secureConnections: flags & Flag.secureConnections != 0, localIRK: localIRK,
                          localRole: flags & Flag.responder != 0 ? .responder : .initiator)
    }
}
