import BluetoothCore

/// The Security Manager Protocol codes (Vol 3 Part H 3.3, Table 3.4).
public enum SMPCode: UInt8, CustomStringConvertible {
    case pairingRequest = 0x01
    case pairingResponse = 0x02
    case pairingConfirm = 0x03
    case pairingRandom = 0x04
    case pairingFailed = 0x05
    case encryptionInformation = 0x06
    case centralIdentification = 0x07
    case identityInformation = 0x08
    case identityAddressInformation = 0x09
    case signingInformation = 0x0A
    case securityRequest = 0x0B
    case pairingPublicKey = 0x0C
    case pairingDHKeyCheck = 0x0D
    case keypressNotification = 0x0E

    public var description: String {
        switch self {
        case .pairingRequest: return "Pairing Request"
        case .pairingResponse: return "Pairing Response"
        case .pairingConfirm: return "Pairing Confirm"
        case .pairingRandom: return "Pairing Random"
        case .pairingFailed: return "Pairing Failed"
        case .encryptionInformation: return "Encryption Information"
        case .centralIdentification: return "Central Identification"
        case .identityInformation: return "Identity Information"
        case .identityAddressInformation: return "Identity Address Information"
        case .signingInformation: return "Signing Information"
        case .securityRequest: return "Security Request"
        case .pairingPublicKey: return "Pairing Public Key"
        case .pairingDHKeyCheck: return "Pairing DHKey Check"
        case .keypressNotification: return "Keypress Notification"
        }
    }

    /// The exact PDU length, code octet included. SMP PDUs have fixed sizes:
    /// anything longer or shorter is malformed.
    var pduLength: Int {
        switch self {
        case .pairingRequest, .pairingResponse: return 7
        case .pairingConfirm, .pairingRandom, .encryptionInformation, .identityInformation,
             .signingInformation, .pairingDHKeyCheck: return 17
        case .pairingFailed, .securityRequest, .keypressNotification: return 2
        case .centralIdentification: return 11
        case .identityAddressInformation: return 8
        case .pairingPublicKey: return 65
        }
    }
}

/// Why received bytes are not a valid SMP PDU.
public enum SMPDecodeError: Error, Equatable, CustomStringConvertible {
    case empty
    case unknownCode(UInt8)
    case badLength(SMPCode, Int)
    case reservedValue(SMPCode)

    public var description: String {
        switch self {
        case .empty: return "empty PDU"
        case .unknownCode(let c): return "unknown code 0x" + hex(c, digits: 2)
        case .badLength(let code, let n): return "\(code) with \(n) octets instead of \(code.pduLength)"
        case .reservedValue(let code): return "reserved value in \(code)"
        }
    }

    /// The Pairing Failed reason to answer with.
    var failureReason: PairingFailureReason {
        if case .unknownCode = self { return .commandNotSupported }
        return .invalidParameters
    }
}

/// One Security Manager PDU, as carried on L2CAP channel 0x0006. 128-bit
/// values are in PDU order (least significant octet first).
public enum SMPPDU: Equatable {
    case pairingRequest(PairingFeatures)
    case pairingResponse(PairingFeatures)
    case pairingConfirm([UInt8])
    case pairingRandom([UInt8])
    case pairingFailed(PairingFailureReason)
    case encryptionInformation(LongTermKey)
    case centralIdentification(ediv: UInt16, rand: UInt64)
    case identityInformation(IdentityResolvingKey)
    /// Always a public or random identity address (type octet 0 or 1).
    case identityAddressInformation(BluetoothAddress)
    case signingInformation([UInt8])
    case securityRequest(AuthenticationRequirements)
    case pairingPublicKey(P256PublicKey)
    case pairingDHKeyCheck([UInt8])
    case keypressNotification(KeypressNotificationType)

    public var code: SMPCode {
        switch self {
        case .pairingRequest: return .pairingRequest
        case .pairingResponse: return .pairingResponse
        case .pairingConfirm: return .pairingConfirm
        case .pairingRandom: return .pairingRandom
        case .pairingFailed: return .pairingFailed
        case .encryptionInformation: return .encryptionInformation
        case .centralIdentification: return .centralIdentification
        case .identityInformation: return .identityInformation
        case .identityAddressInformation: return .identityAddressInformation
        case .signingInformation: return .signingInformation
        case .securityRequest: return .securityRequest
        case .pairingPublicKey: return .pairingPublicKey
        case .pairingDHKeyCheck: return .pairingDHKeyCheck
        case .keypressNotification: return .keypressNotification
        }
    }

    public func encoded() -> [UInt8] {
        var w = ByteWriter(capacity: code.pduLength)
        w.u8(code.rawValue)
        switch self {
        case .pairingRequest(let f), .pairingResponse(let f):
            w.u8(f.ioCapability.rawValue)
            w.u8(f.oobDataPresent ? 1 : 0)
            w.u8(f.authReq.rawValue)
            w.u8(f.maxEncryptionKeySize)
            w.u8(f.initiatorKeys.rawValue)
            w.u8(f.responderKeys.rawValue)
        case .pairingConfirm(let v), .pairingRandom(let v), .signingInformation(let v), .pairingDHKeyCheck(let v):
            w.append(SMPPDU.exactly16(v))
        case .pairingFailed(let reason):
            w.u8(reason.rawValue)
        case .encryptionInformation(let ltk):
            w.append(ltk.bytes)
        case .centralIdentification(let ediv, let rand):
            w.u16(ediv)
            w.u64(rand)
        case .identityInformation(let irk):
            w.append(irk.bytes)
        case .identityAddressInformation(let address):
            w.u8(address.isRandom ? 1 : 0)
            w.append(address.littleEndianBytes)
        case .securityRequest(let authReq):
            w.u8(authReq.rawValue)
        case .pairingPublicKey(let key):
            w.append(key.wireBytes)
        case .keypressNotification(let type):
            w.u8(type.rawValue)
        }
        return w.bytes
    }

    /// 16-octet fields are always built by us at 16 octets; pad or cut
    /// anyway so a bug can never produce a malformed PDU.
    private static func exactly16(_ v: [UInt8]) -> [UInt8] {
        if v.count == 16 { return v }
        return Array((v + [UInt8](repeating: 0, count: 16)).prefix(16))
    }

    public static func decode(_ bytes: [UInt8]) throws(SMPDecodeError) -> SMPPDU {
        try decode(bytes[...])
    }

    public static func decode(_ bytes: ArraySlice<UInt8>) throws(SMPDecodeError) -> SMPPDU {
        var r = ByteReader(bytes)
        guard let raw = r.u8() else { throw .empty }
        guard let code = SMPCode(rawValue: raw) else { throw .unknownCode(raw) }
        guard bytes.count == code.pduLength else { throw .badLength(code, bytes.count) }
        // The length check above makes every read below succeed; the
        // optional binding keeps the decoder safe even if it did not.
        switch code {
        case .pairingRequest, .pairingResponse:
            guard let io = r.u8(), let oob = r.u8(), let auth = r.u8(), let size = r.u8(),
                  let ikeys = r.u8(), let rkeys = r.u8() else { throw .badLength(code, bytes.count) }
            guard let ioCapability = IOCapability(rawValue: io), oob <= 1 else { throw .reservedValue(code) }
            let features = PairingFeatures(ioCapability: ioCapability, oobDataPresent: oob == 1,
                                           authReq: AuthenticationRequirements(rawValue: auth),
                                           maxEncryptionKeySize: size,
                                           initiatorKeys: KeyDistribution(rawValue: ikeys),
                                           responderKeys: KeyDistribution(rawValue: rkeys))
            return code == .pairingRequest ? .pairingRequest(features) : .pairingResponse(features)
        case .pairingConfirm, .pairingRandom, .signingInformation, .pairingDHKeyCheck:
            guard let value = r.array(16) else { throw .badLength(code, bytes.count) }
            switch code {
            case .pairingConfirm: return .pairingConfirm(value)
            case .pairingRandom: return .pairingRandom(value)
            case .signingInformation: return .signingInformation(value)
            default: return .pairingDHKeyCheck(value)
            }
        case .pairingFailed:
            guard let reason = r.u8() else { throw .badLength(code, bytes.count) }
            return .pairingFailed(PairingFailureReason(rawValue: reason))
        case .encryptionInformation:
            guard let b = r.bytes(16), let ltk = LongTermKey(bytes: b) else { throw .badLength(code, bytes.count) }
            return .encryptionInformation(ltk)
        case .centralIdentification:
            guard let ediv = r.u16(), let rand = r.u64() else { throw .badLength(code, bytes.count) }
            return .centralIdentification(ediv: ediv, rand: rand)
        case .identityInformation:
            guard let b = r.bytes(16), let irk = IdentityResolvingKey(bytes: b) else {
                throw .badLength(code, bytes.count)
            }
            return .identityInformation(irk)
        case .identityAddressInformation:
            guard let type = r.u8(), let b = r.bytes(6) else { throw .badLength(code, bytes.count) }
            guard type <= 1, let address = BluetoothAddress(littleEndian: b, kind: type == 1 ? .random : .public) else {
                throw .reservedValue(code)
            }
            return .identityAddressInformation(address)
        case .securityRequest:
            guard let auth = r.u8() else { throw .badLength(code, bytes.count) }
            return .securityRequest(AuthenticationRequirements(rawValue: auth))
        case .pairingPublicKey:
            guard let b = r.bytes(64), let key = P256PublicKey(wireBytes: b) else { throw .badLength(code, bytes.count) }
            return .pairingPublicKey(key)
        case .keypressNotification:
            guard let v = r.u8() else { throw .badLength(code, bytes.count) }
            guard let type = KeypressNotificationType(rawValue: v) else { throw .reservedValue(code) }
            return .keypressNotification(type)
        }
    }
}
