import Testing
import BluetoothCore
@testable import SMP

@Suite struct SMPPDUTests {
    static let features = PairingFeatures(ioCapability: .keyboardDisplay, oobDataPresent: false,
                                          authReq: AuthenticationRequirements(rawValue: 0x2D), maxEncryptionKeySize: 16,
                                          initiatorKeys: .identityKey, responderKeys: KeyDistribution(rawValue: 0x07))
    static let sixteen: [UInt8] = Array(1...16)

    /// One PDU of every code.
    static let all: [SMPPDU] = [
        .pairingRequest(features),
        .pairingResponse(features),
        .pairingConfirm(sixteen),
        .pairingRandom(sixteen),
        .pairingFailed(.dhKeyCheckFailed),
        .encryptionInformation(LongTermKey(bytes: sixteen)!),
        .centralIdentification(ediv: 0xBEEF, rand: 0x0102_0304_0506_0708),
        .identityInformation(IdentityResolvingKey(bytes: sixteen)!),
        .identityAddressInformation(BluetoothAddress("C0:11:22:33:44:55", kind: .random)!),
        .signingInformation(sixteen),
        .securityRequest(AuthenticationRequirements(rawValue: 0x0D)),
        .pairingPublicKey(P256PublicKey.debugKey),
        .pairingDHKeyCheck(sixteen),
        .keypressNotification(.digitEntered),
    ]

    @Test func everyCodeRoundTrips() throws {
        for pdu in SMPPDUTests.all {
            let bytes = pdu.encoded()
            #expect(bytes.first == pdu.code.rawValue)
            #expect(bytes.count == pdu.code.pduLength)
            #expect(try SMPPDU.decode(bytes) == pdu)
        }
        #expect(SMPPDUTests.all.count == 14)
    }

    @Test func knownWireForms() throws {
        // The Pairing Request of the c1 sample, printed 07071000000101:
        // code 01, DisplayYesNo, no OOB, AuthReq 00, 16 octets, keys 07/07.
        let request = try SMPPDU.decode(spec("07071000000101"))
        guard case .pairingRequest(let f) = request else {
            Issue.record("not a Pairing Request")
            return
        }
        #expect(f.ioCapability == .displayYesNo)
        #expect(!f.oobDataPresent)
        #expect(f.authReq.rawValue == 0 && !f.authReq.bonding)
        #expect(f.maxEncryptionKeySize == 16)
        #expect(f.initiatorKeys == KeyDistribution(rawValue: 0x07) && f.responderKeys == KeyDistribution(rawValue: 0x07))
        #expect(request.encoded() == spec("07071000000101"))
        #expect(SMPPDU.identityAddressInformation(BluetoothAddress("C0:11:22:33:44:55", kind: .random)!).encoded()
            == [0x09, 0x01, 0x55, 0x44, 0x33, 0x22, 0x11, 0xC0])
        #expect(SMPPDU.centralIdentification(ediv: 0x1234, rand: 0x0102_0304_0506_0708).encoded()
            == [0x07, 0x34, 0x12, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01])
        // The public key travels X then Y, each least significant octet first.
        let key = SMPPDU.pairingPublicKey(P256PublicKey.debugKey).encoded()
        #expect(key[1] == 0xE6 && key[32] == 0x20 && key[33] == 0x8B && key[64] == 0xDC)
    }

    @Test func wrongLengthsAreRejected() {
        for pdu in SMPPDUTests.all {
            let bytes = pdu.encoded()
            #expect(throws: SMPDecodeError.badLength(pdu.code, bytes.count - 1)) { try SMPPDU.decode(Array(bytes.dropLast())) }
            #expect(throws: SMPDecodeError.badLength(pdu.code, bytes.count + 1)) { try SMPPDU.decode(bytes + [0]) }
            #expect(throws: SMPDecodeError.badLength(pdu.code, 1)) { try SMPPDU.decode([pdu.code.rawValue]) }
        }
    }

    @Test func unknownCodesAndReservedValuesAreRejected() {
        #expect(throws: SMPDecodeError.empty) { try SMPPDU.decode([]) }
        #expect(throws: SMPDecodeError.unknownCode(0x00)) { try SMPPDU.decode([0x00, 0x00]) }
        #expect(throws: SMPDecodeError.unknownCode(0x0F)) { try SMPPDU.decode([0x0F, 0x00]) }
        // IO capability 5, OOB flag 2.
        #expect(throws: SMPDecodeError.reservedValue(.pairingResponse)) { try SMPPDU.decode([0x02, 0x05, 0, 0x0D, 16, 0, 0]) }
        #expect(throws: SMPDecodeError.reservedValue(.pairingRequest)) { try SMPPDU.decode([0x01, 0x04, 2, 0x0D, 16, 0, 0]) }
        // Identity address type 2, keypress type 5.
        #expect(throws: SMPDecodeError.reservedValue(.identityAddressInformation)) {
            try SMPPDU.decode([0x09, 0x02, 1, 2, 3, 4, 5, 6])
        }
        #expect(throws: SMPDecodeError.reservedValue(.keypressNotification)) { try SMPPDU.decode([0x0E, 0x05]) }
    }

    @Test func everyFailureReasonDecodes() throws {
        let known: [PairingFailureReason] = [.passkeyEntryFailed, .oobNotAvailable, .authenticationRequirements,
                                             .confirmValueFailed, .pairingNotSupported, .encryptionKeySize,
                                             .commandNotSupported, .unspecifiedReason, .repeatedAttempts,
                                             .invalidParameters, .dhKeyCheckFailed, .numericComparisonFailed,
                                             .brEdrPairingInProgress, .crossTransportKeyDerivationNotAllowed,
                                             .keyRejected, .busy]
        for (i, reason) in known.enumerated() {
            #expect(reason.rawValue == UInt8(i + 1))
            #expect(try SMPPDU.decode([0x05, UInt8(i + 1)]) == .pairingFailed(reason))
        }
        #expect(try SMPPDU.decode([0x05, 0x7F]) == .pairingFailed(.reserved(0x7F)))
        #expect(PairingFailureReason(rawValue: 0x7F).rawValue == 0x7F)
    }
}
