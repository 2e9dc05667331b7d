import BluetoothCore

/// The reason octet of Pairing Failed (Vol 3 Part H 3.5.5, Table 3.7).
public enum PairingFailureReason: Equatable, CustomStringConvertible {
    case passkeyEntryFailed
    case oobNotAvailable
    case authenticationRequirements
    case confirmValueFailed
    case pairingNotSupported
    case encryptionKeySize
    case commandNotSupported
    case unspecifiedReason
    case repeatedAttempts
    case invalidParameters
    case dhKeyCheckFailed
    case numericComparisonFailed
    case brEdrPairingInProgress
    case crossTransportKeyDerivationNotAllowed
    case keyRejected
    case busy
    /// A value this stack does not know (reserved when it was written).
    case reserved(UInt8)

    public init(rawValue: UInt8) {
        switch rawValue {
        case 0x01: self = .passkeyEntryFailed
        case 0x02: self = .oobNotAvailable
        case 0x03: self = .authenticationRequirements
        case 0x04: self = .confirmValueFailed
        case 0x05: self = .pairingNotSupported
        case 0x06: self = .encryptionKeySize
        case 0x07: self = .commandNotSupported
        case 0x08: self = .unspecifiedReason
        case 0x09: self = .repeatedAttempts
        case 0x0A: self = .invalidParameters
        case 0x0B: self = .dhKeyCheckFailed
        case 0x0C: self = .numericComparisonFailed
        case 0x0D: self = .brEdrPairingInProgress
        case 0x0E: self = .crossTransportKeyDerivationNotAllowed
        case 0x0F: self = .keyRejected
        case 0x10: self = .busy
        default: self = .reserved(rawValue)
        }
    }

    public var rawValue: UInt8 {
        switch self {
        case .passkeyEntryFailed: return 0x01
        case .oobNotAvailable: return 0x02
        case .authenticationRequirements: return 0x03
        case .confirmValueFailed: return 0x04
        case .pairingNotSupported: return 0x05
        case .encryptionKeySize: return 0x06
        case .commandNotSupported: return 0x07
        case .unspecifiedReason: return 0x08
        case .repeatedAttempts: return 0x09
        case .invalidParameters: return 0x0A
        case .dhKeyCheckFailed: return 0x0B
        case .numericComparisonFailed: return 0x0C
        case .brEdrPairingInProgress: return 0x0D
        case .crossTransportKeyDerivationNotAllowed: return 0x0E
        case .keyRejected: return 0x0F
        case .busy: return 0x10
        case .reserved(let v): return v
        }
    }

    public var description: String {
        switch self {
        case .passkeyEntryFailed: return "passkey entry failed"
        case .oobNotAvailable: return "OOB not available"
        case .authenticationRequirements: return "authentication requirements"
        case .confirmValueFailed: return "confirm value failed"
        case .pairingNotSupported: return "pairing not supported"
        case .encryptionKeySize: return "encryption key size"
        case .commandNotSupported: return "command not supported"
        case .unspecifiedReason: return "unspecified reason"
        case .repeatedAttempts: return "repeated attempts"
        case .invalidParameters: return "invalid parameters"
        case .dhKeyCheckFailed: return "DHKey check failed"
        case .numericComparisonFailed: return "numeric comparison failed"
        case .brEdrPairingInProgress: return "BR/EDR pairing in progress"
        case .crossTransportKeyDerivationNotAllowed: return "cross-transport key derivation not allowed"
        case .keyRejected: return "key rejected"
        case .busy: return "busy"
        case .reserved(let v): return "reason 0x" + hex(v, digits: 2)
        }
    }

    /// Whether pairing may simply be tried again later. A wrong passkey, a
    /// cancelled comparison or a busy peer is worth another attempt; a peer
    /// that cannot meet our requirements will refuse again.
    public var isRetryable: Bool {
        switch self {
        case .passkeyEntryFailed, .confirmValueFailed, .unspecifiedReason, .repeatedAttempts,
             .dhKeyCheckFailed, .numericComparisonFailed, .brEdrPairingInProgress, .busy:
            return true
        default:
            return false
        }
    }
}
