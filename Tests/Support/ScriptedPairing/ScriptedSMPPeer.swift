import BluetoothCore
@testable import SMP

/// What the two scripted phones share, whichever side of pairing they
/// play: the phone's keys and identity, the nonces it draws, and the
/// pairing as it sees it, including what the head unit handed it.
class ScriptedSMPPeer {
    var ioCapability: IOCapability = .keyboardDisplay
    var maxKeySize: UInt8 = 16
    var keyPair: P256KeyPair
    /// Replaces the public key we send (attacks); nil sends our real one.
    var publicKeyOverride: P256PublicKey? = nil
    /// What the user types when the head unit shows a passkey (set in
    /// advance to type a wrong one), or what the phone shows.
    var typedPasskey: Passkey? = nil
    /// The value shown in numeric comparison (filled in by the phone).
    var numericValue: UInt32? = nil
    var irk = IdentityResolvingKey(bytes: bytesFromHex("0102030405060708090a0b0c0d0e0f10")!)!
    var identityAddress = BluetoothAddress("C4:5A:11:22:33:44", kind: .random)!
    /// Nonces to draw first (sample data); system randomness after them.
    var nonces: [[UInt8]] = []

    /// The link's central and peripheral.
    let centralAddress: BluetoothAddress
    let peripheralAddress: BluetoothAddress

    // State of the pairing as the phone sees it.
    var preq: [UInt8] = []
    var pres: [UInt8] = []
    var request: PairingFeatures? = nil
    var response: PairingFeatures? = nil
    var peerKey: P256PublicKey? = nil
    var dhKey: [UInt8] = []
    var localNonce: [UInt8] = []
    var peerNonce: [UInt8] = []
    var peerConfirm: [UInt8] = []
    var round = 0
    var ltk: [UInt8] = []
    var failedWith: PairingFailureReason? = nil
    var receivedIRK: IdentityResolvingKey? = nil
    var receivedIdentityAddress: BluetoothAddress? = nil
    var log: [SMPCode] = []

    init(central: BluetoothAddress, peripheral: BluetoothAddress, keyPair: P256KeyPair?) throws {
        centralAddress = central
        peripheralAddress = peripheral
        self.keyPair = try keyPair ?? P256KeyPair.generate()
    }

    func nonce() -> [UInt8] {
        if !nonces.isEmpty { return nonces.removeFirst() }
        return (try? RandomSource.system.bytes(16)) ?? []
    }

    var passkeyBit: UInt8 { 0x80 | UInt8(((typedPasskey?.value ?? 0) >> UInt32(round)) & 1) }

    /// Keeps what needs no answer: Pairing Failed, the head unit's identity keys.
    func record(_ pdu: SMPPDU) {
        switch pdu {
        case .pairingFailed(let reason): failedWith = reason
        case .identityInformation(let irk): receivedIRK = irk
        case .identityAddressInformation(let address): receivedIdentityAddress = address
        default: break
        }
    }

    func fail(_ reason: PairingFailureReason) -> [[UInt8]] {
        [SMPPDU.pairingFailed(reason).encoded()]
    }
}

/// A run of the head unit's Security Manager against a scripted phone.
protocol PairingRun {
    /// Every output except the PDUs, in order.
    var events: [SecurityManagerOutput] { get }
}

extension PairingRun {
    var failures: [PairingFailure] {
        events.compactMap { if case .failed(let f) = $0 { return f } else { return nil } }
    }

    var outcome: PairingOutcome? {
        for e in events { if case .paired(let o) = e { return o } }
        return nil
    }

    /// The security reported last, when the last output says the link is encrypted.
    var finalSecurity: LinkSecurity? {
        if case .encrypted(let security)? = events.last { return security }
        return nil
    }

    var shownPasskeys: [Passkey] {
        events.compactMap { if case .displayPasskey(let p) = $0 { return p } else { return nil } }
    }
}
