import BluetoothCore

/// The fields of a Pairing Request / Pairing Response (Vol 3 Part H 3.5.1-3.5.2).

/// The AuthReq octet. Kept as the raw octet so reserved bits a peer sets
/// survive into c1/f6, which hash the PDU fields as sent.
public struct AuthenticationRequirements: Equatable {
    public var rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public init(bonding: Bool, mitm: Bool, secureConnections: Bool, keypress: Bool = false, ct2: Bool = false) {
        var v: UInt8 = bonding ? 0x01 : 0x00
        if mitm { v |= 0x04 }
        if secureConnections { v |= 0x08 }
        if keypress { v |= 0x10 }
        if ct2 { v |= 0x20 }
        rawValue = v
    }

    /// Bonding_Flags: 0b01 is Bonding, everything else no bonding.
    public var bonding: Bool { rawValue & 0x03 == 0x01 }
    public var mitm: Bool { rawValue & 0x04 != 0 }
    public var secureConnections: Bool { rawValue & 0x08 != 0 }
    public var keypress: Bool { rawValue & 0x10 != 0 }
    public var ct2: Bool { rawValue & 0x20 != 0 }
}

/// Initiator/Responder Key Distribution bits.
public struct KeyDistribution: Equatable {
    public var rawValue: UInt8

    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let encryptionKey = KeyDistribution(rawValue: 0x01)
    public static let identityKey = KeyDistribution(rawValue: 0x02)
    public static let signingKey = KeyDistribution(rawValue: 0x04)
    public static let linkKey = KeyDistribution(rawValue: 0x08)
    public static let none = KeyDistribution(rawValue: 0)

    public func contains(_ other: KeyDistribution) -> Bool { rawValue & other.rawValue == other.rawValue }
    public func union(_ other: KeyDistribution) -> KeyDistribution { KeyDistribution(rawValue: rawValue | other.rawValue) }
    public func intersection(_ other: KeyDistribution) -> KeyDistribution {
        KeyDistribution(rawValue: rawValue & other.rawValue)
    }
    public func isSubset(of other: KeyDistribution) -> Bool { rawValue & ~other.rawValue == 0 }
    public var isEmpty: Bool { rawValue == 0 }
}

/// The six parameter octets of a Pairing Request or Response.
public struct PairingFeatures: Equatable {
    public var ioCapability: IOCapability
    public var oobDataPresent: Bool
    public var authReq: AuthenticationRequirements
    /// 7...16 octets; other values are refused by the pairing, not the decoder.
    public var maxEncryptionKeySize: UInt8
    public var initiatorKeys: KeyDistribution
    public var responderKeys: KeyDistribution

    public init(ioCapability: IOCapability, oobDataPresent: Bool = false, authReq: AuthenticationRequirements,
                maxEncryptionKeySize: UInt8 = 16, initiatorKeys: KeyDistribution, responderKeys: KeyDistribution) {
        self.ioCapability = ioCapability
        self.oobDataPresent = oobDataPresent
        self.authReq = authReq
        self.maxEncryptionKeySize = maxEncryptionKeySize
        self.initiatorKeys = initiatorKeys
        self.responderKeys = responderKeys
    }

    /// IOcap for f6: IO capability, OOB flag, AuthReq (SMP order).
    var f6IOCap: [UInt8] { [ioCapability.rawValue, oobDataPresent ? 1 : 0, authReq.rawValue] }
}

/// The Keypress Notification types (3.5.8).
public enum KeypressNotificationType: UInt8 {
    case entryStarted = 0
    case digitEntered = 1
    case digitErased = 2
    case cleared = 3
    case entryCompleted = 4
}
