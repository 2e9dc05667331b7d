import Testing
import BluetoothCore
@testable import SMP

@Suite struct BondRecordTests {
    static let full = BondRecord(peerIdentityAddress: BluetoothAddress("C4:5A:11:22:33:44", kind: .random)!,
                                 peerIRK: IdentityResolvingKey(bytes: spec("ec0234a3 57c8ad05 341010a6 0a397d9b")),
                                 longTermKey: LongTermKey(bytes: spec(Sample.ltk))!, ediv: 0x1234,
                                 rand: 0x1122_3344_5566_7788, keySize: 16, authenticated: true,
                                 secureConnections: true, localIRK: headUnitIdentity.irk)
    static let minimal = BondRecord(peerIdentityAddress: BluetoothAddress("00:1B:DC:AA:BB:CC", kind: .public)!,
                                    peerIRK: nil, longTermKey: LongTermKey(bytes: spec(Sample.macKey))!,
                                    keySize: 16, authenticated: false, secureConnections: false, localIRK: nil)

    @Test func crc32CheckValue() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
    }

    @Test func roundTrips() throws {
        for bond in [BondRecordTests.full, BondRecordTests.minimal] {
            let bytes = bond.encoded()
            #expect(Array(bytes[0..<4]) == Array("NNBD".utf8))
            #expect(bytes[4] == BondRecord.encodingVersion)
            #expect(try BondRecord.decode(bytes) == bond)
        }
        #expect(BondRecordTests.full.encoded().count == 4 + 3 + 35 + 32 + 4)
    }

    /// Bit 4 of the flags: paired as responder. Records from before it
    /// existed decode as paired as initiator.
    @Test func roleRoundTrips() throws {
        var responder = BondRecordTests.full
        responder.localRole = .responder
        let bytes = responder.encoded()
        #expect(bytes[7] & 0x10 != 0)
        #expect(try BondRecord.decode(bytes) == responder)
        #expect(BondRecordTests.full.encoded()[7] & 0x10 == 0)
        #expect(try BondRecord.decode(BondRecordTests.full.encoded()).localRole == .initiator)
    }

    @Test func everyTruncationIsRejected() {
        let bytes = BondRecordTests.full.encoded()
        for n in 0..<bytes.count {
            #expect(throws: BondDecodingError.self) { try BondRecord.decode(Array(bytes[0..<n])) }
        }
        #expect(throws: BondDecodingError.lengthMismatch) { try BondRecord.decode(bytes + [0]) }
    }

    @Test func everyCorruptedOctetIsRejected() {
        let bytes = BondRecordTests.full.encoded()
        for i in 0..<bytes.count {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var corrupt = bytes
                corrupt[i] ^= flip
                #expect(throws: BondDecodingError.self) { try BondRecord.decode(corrupt) }
            }
        }
    }

    @Test func specificErrors() {
        var bytes = BondRecordTests.minimal.encoded()
        #expect(throws: BondDecodingError.badMagic) { try BondRecord.decode([0x4E, 0x4E, 0x42, 0x45] + bytes[4...]) }
        bytes[4] = 2
        #expect(throws: BondDecodingError.unsupportedVersion(2)) { try BondRecord.decode(bytes) }
        var checksum = BondRecordTests.minimal.encoded()
        checksum[checksum.count - 1] ^= 0x55
        #expect(throws: BondDecodingError.checksumMismatch) { try BondRecord.decode(checksum) }
        #expect(throws: BondDecodingError.truncated) { try BondRecord.decode([]) }
    }

    /// A record whose checksum is right but whose fields are not (written by
    /// a buggy version, say) is refused too.
    @Test func invalidFieldsBehindAValidChecksumAreRejected() {
        func resealed(_ edit: (inout [UInt8]) -> Void) -> [UInt8] {
            var bytes = BondRecordTests.minimal.encoded()
            bytes.removeLast(4)
            edit(&bytes)
            var w = ByteWriter()
            w.u32(CRC32.checksum(bytes))
            return bytes + w.bytes
        }
        let payload = 7
        #expect(throws: BondDecodingError.invalidField("flags")) { try BondRecord.decode(resealed { $0[payload] |= 0x80 }) }
        #expect(throws: BondDecodingError.invalidField("address type")) { try BondRecord.decode(resealed { $0[payload + 1] = 2 }) }
        #expect(throws: BondDecodingError.invalidField("LTK")) {
            try BondRecord.decode(resealed { for i in 0..<16 { $0[payload + 8 + i] = 0 } })
        }
        #expect(throws: BondDecodingError.invalidField("key size")) { try BondRecord.decode(resealed { $0[payload + 34] = 6 }) }
        // Says a peer IRK follows, but none does.
        #expect(throws: BondDecodingError.lengthMismatch) { try BondRecord.decode(resealed { $0[payload] |= 0x04 }) }
    }
}

@Suite struct AddressResolutionTests {
    static let sampleIRK = IdentityResolvingKey(bytes: spec("ec0234a3 57c8ad05 341010a6 0a397d9b"))!
    /// prand 0x708194 and hash ah(IRK, prand) = 0x0dfbaa from Appendix D.7.
    static let sampleRPA = BluetoothAddress("70:81:94:0D:FB:AA", kind: .random)!

    @Test func sampleAddressResolvesWithSampleIRK() throws {
        #expect(AddressResolutionTests.sampleRPA.isResolvablePrivate)
        #expect(AddressResolutionTests.sampleIRK.resolves(AddressResolutionTests.sampleRPA))
        let other = IdentityResolvingKey(bytes: spec("ec0234a3 57c8ad05 341010a6 0a397d9c"))!
        #expect(!other.resolves(AddressResolutionTests.sampleRPA))
        // One bit of the hash off.
        #expect(!AddressResolutionTests.sampleIRK.resolves(BluetoothAddress("70:81:94:0D:FB:AB", kind: .random)!))
        // Same bits as a public address: not an RPA at all.
        #expect(!AddressResolutionTests.sampleIRK.resolves(BluetoothAddress("70:81:94:0D:FB:AA", kind: .public)!))
    }

    @Test func makingAnAddressMatchesTheSample() throws {
        let made = try AddressResolutionTests.sampleIRK.resolvablePrivateAddress(prand: spec("708194"))
        #expect(made == AddressResolutionTests.sampleRPA)
        let fresh = try AddressResolutionTests.sampleIRK.resolvablePrivateAddress(prand: RandomSource.system.bytes(3))
        #expect(fresh.isResolvablePrivate)
        #expect(AddressResolutionTests.sampleIRK.resolves(fresh))
    }

    @Test func allZeroIRKResolvesNothing() throws {
        let zero = IdentityResolvingKey(bytes: [UInt8](repeating: 0, count: 16))!
        let made = try zero.resolvablePrivateAddress(prand: spec("708194"))
        #expect(!zero.resolves(made))
    }

    @Test func findsTheBondBehindARotatedAddress() {
        var phone = BondRecordTests.full
        phone.peerIRK = AddressResolutionTests.sampleIRK
        let other = BondRecordTests.minimal
        let bonds = [other, phone]
        #expect(BondRecord.find(AddressResolutionTests.sampleRPA, in: bonds) == phone)
        #expect(BondRecord.find(phone.peerIdentityAddress, in: bonds) == phone)
        #expect(BondRecord.find(other.peerIdentityAddress, in: bonds) == other)
        #expect(BondRecord.find(BluetoothAddress("4A:00:00:00:00:01", kind: .random)!, in: bonds) == nil)
    }
}
